import { Command } from "commander";
import type { ServiceContext } from "../plugin/api.ts";
import { VERSION } from "../version.ts";

interface ServeFlags {
  host: string;
  port?: string;
  path?: string;
  tokenFile?: string;
}

/** Requests allowed to wait for the engine lock; more are answered 503. */
const MAX_WAITING = 32;
/** After a shutdown signal, the longest wait for in-flight requests before exiting anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** `svc serve`: the HTTP API over one shared, lock-serialized headless engine. */
export function serveCommand(setExit: (code: number) => void): Command {
  return new Command("serve")
    .description("Serve the HTTP API: POST /chat, GET /sessions, /health, /version, POST /mcp")
    .option("--host <host>", "bind address", "127.0.0.1")
    .option("--port <port>", "port, 0 picks a free one (default: SVC_PORT, else 8787)")
    .option("--path <dir>", "worktree (default: SVC_PATH, else the current directory)")
    .option(
      "--token-file <path>",
      "require Authorization: Bearer <token> (token read from this file); needed off loopback",
    )
    .action(async (flags: ServeFlags) => setExit(await serve(flags)));
}

/** Loads the server modules only when serving: the MCP SDK is too heavy for every startup. */
async function serve(flags: ServeFlags): Promise<number> {
  const [
    {
      bearerChecker,
      closeEndpoints,
      createHandler,
      isLoopback,
      mountServices,
      Mutex,
      readTokenFile,
    },
    { createMcpHost, createMcpHttpEndpoint },
    { SessionStore },
    { composeEngine },
  ] = await Promise.all([
    import("../http/mod.ts"),
    import("../mcp/mod.ts"),
    import("../session/store.ts"),
    import("./compose.ts"),
  ]);
  const port = parsePort(flags.port ?? Deno.env.get("SVC_PORT") ?? "8787");
  if (port === null) return usage("--port (or SVC_PORT) must be an integer from 0 to 65535");
  const hostname = flags.host;
  if (!isLoopback(hostname) && !flags.tokenFile) {
    return usage(`binding to ${hostname} (not loopback) requires --token-file`);
  }
  let checkToken: ((authorization: string | null) => boolean) | undefined;
  const warn = (message: string) => console.error(`svc serve: warning: ${message}`);
  const onError = (error: Error) => console.error(`svc serve: error: ${error.message}`);
  let composed;
  try {
    if (flags.tokenFile) {
      const read = await readTokenFile(flags.tokenFile);
      if (read.warning) warn(read.warning);
      checkToken = bearerChecker(read.token);
    }
    composed = await composeEngine({ path: flags.path ?? Deno.env.get("SVC_PATH") }, {
      headless: true,
    });
  } catch (err) {
    console.error(`svc serve: ${(err as Error).message}`);
    return 1;
  }
  composed.warnings.forEach(warn);
  const { engine, worktree } = composed;
  let store: InstanceType<typeof SessionStore>;
  try {
    store = new SessionStore(worktree, { confine: !composed.trusted });
  } catch (err) {
    console.error(`svc serve: ${(err as Error).message}`);
    return 1;
  }
  const lock = new Mutex(MAX_WAITING);
  const shutdown = new AbortController();
  const host = createMcpHost(engine.deps, store, {
    serialize: (fn, signal) => lock.run(fn, signal),
    shutdown: shutdown.signal,
    warn,
  });
  const ctx: ServiceContext = {
    worktree,
    version: VERSION,
    tools: host.tools,
    sessions: host.sessions,
    endpoints: { mcp: () => createMcpHttpEndpoint(host, { onError }) },
  };
  const endpoints = await mountServices(composed.plugins.services, ctx, warn);
  let handler: (request: Request) => Promise<Response> = () =>
    Promise.resolve(new Response(null, { status: 503 }));
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({ hostname, port, onListen: () => {} }, (request) => handler(request));
  } catch (err) {
    console.error(`svc serve: cannot listen on ${hostname}:${port}: ${(err as Error).message}`);
    return 1;
  }
  const bound = server.addr.port;
  handler = createHandler(
    { engine, store, lock, shutdown: shutdown.signal, version: VERSION, endpoints },
    { hostname, port: bound, checkToken, onError },
  );
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  console.error(`svc serve: listening on http://${shown}:${bound} (worktree ${worktree})`);

  let signals = 0;
  const stop = () => {
    if (++signals > 1) Deno.exit(130);
    const busy = lock.busy ? " (cancelling the running turn)" : "";
    console.error(`svc serve: shutting down${busy}`);
    shutdown.abort();
    closeEndpoints(endpoints).finally(() => server.shutdown());
    Deno.unrefTimer(setTimeout(() => {
      console.error("svc serve: in-flight requests did not finish in time; exiting");
      Deno.exit(1);
    }, SHUTDOWN_GRACE_MS));
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  return 0;
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port <= 65535 ? port : null;
}

function usage(message: string): number {
  console.error(`svc serve: ${message}`);
  return 2;
}
