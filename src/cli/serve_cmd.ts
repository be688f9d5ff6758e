import { Command } from "commander";
import { wholeNumberOrNull } from "./flags.ts";
import { lazyEndpoint } from "../http/lazy_endpoint.ts";

interface ServeFlags {
  host: string;
  port?: string;
  path?: string;
  tokenFile?: string;
  /** False with --no-auth. */
  auth: boolean;
  /** --ui: also serve the web page at GET /. */
  ui?: boolean;
}

/** After a shutdown signal, the longest wait for in-flight requests before exiting anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** `svc serve`: the HTTP API over one shared, lock-serialized headless engine. */
export function serveCommand(setExit: (code: number) => void): Command {
  return new Command("serve")
    .description(
      "Serve the HTTP API: POST /chat (JSON or streamed), sessions, live approvals, jobs, " +
        "GET /openapi.json, /health, /version and POST /mcp (docs/serving.md)",
    )
    .option("--host <host>", "bind address", "127.0.0.1")
    .option("--port <port>", "port, 0 picks a free one (default: SVC_PORT, else 8787)")
    .option("--path <dir>", "worktree (default: SVC_PATH, else the current directory)")
    .option(
      "--token-file <path>",
      "the bearer token every request but /health and /version must send (default: " +
        "~/.config/svc/serve_token, created 0600 on first start)",
    )
    .option("--no-auth", "serve without a token (loopback only; every local process can call it)")
    .option(
      "--ui",
      "also serve a web page at GET / to chat, answer approvals and see sessions and jobs (the " +
        "page is static and open; everything it calls still needs the token)",
    )
    .action(async (flags: ServeFlags) => setExit(await serve(flags)));
}

/** Loads the server modules only when serving (the MCP SDK only on the first POST /mcp). */
async function serve(flags: ServeFlags): Promise<number> {
  const [
    { bearerChecker, createServeApp, defaultTokenPath, isLoopback, listen, loadOrCreateToken },
    { Runtime },
    { serveJobs },
  ] = await Promise.all([
    import("../http/mod.ts"),
    import("../runtime/runtime.ts"),
    import("./serve_jobs.ts"),
  ]);
  const port = wholeNumberOrNull(flags.port ?? Deno.env.get("SVC_PORT") ?? "8787", 0, 65535);
  if (port === null) return usage("--port (or SVC_PORT) must be an integer from 0 to 65535");
  const hostname = flags.host;
  if (!flags.auth && flags.tokenFile) {
    return usage("--no-auth and --token-file contradict each other");
  }
  if (!flags.auth && !isLoopback(hostname)) {
    return usage(`binding to ${hostname} (not loopback) requires a token; drop --no-auth`);
  }
  let checkToken: ((authorization: string | null) => boolean) | undefined;
  const warn = (message: string) => console.error(`svc serve: warning: ${message}`);
  const onError = (error: Error) => console.error(`svc serve: error: ${error.message}`);
  // A client's bad request is the client's error, not the server's: noted as such.
  const onClientError = (error: Error, status: number) =>
    console.error(`svc serve: refused a client request (${status}): ${error.message}`);
  let app;
  let auth = "no authentication";
  try {
    if (flags.auth) {
      const tokenFile = flags.tokenFile ?? defaultTokenPath();
      const read = await loadOrCreateToken(tokenFile);
      checkToken = bearerChecker(read.token);
      auth = `${read.created ? "new " : ""}token in ${tokenFile}`;
    } else {
      warn(
        "--no-auth: every local user and process can call this server and read its sessions; " +
          "ask-gated MCP tool calls are refused",
      );
    }
    const runtime = await Runtime.load({ path: flags.path ?? Deno.env.get("SVC_PATH"), warn });
    runtime.warnings.forEach(warn);
    (await runtime.start()).forEach(warn);
    app = await createServeApp(runtime, {
      mcpEndpoint: (host) => lazyEndpoint(() => mcpEndpoint(host, { onError, onClientError })),
      warn,
      jobs: serveJobs(runtime, { log: (line) => console.error(`svc serve: ${line}`) }),
    });
  } catch (err) {
    console.error(`svc serve: ${(err as Error).message}`);
    return 1;
  }
  let handler: (request: Request) => Promise<Response> = () =>
    Promise.resolve(new Response(null, { status: 503 }));
  let server;
  try {
    server = await listen((request) => handler(request), { hostname, port, onError });
  } catch (err) {
    console.error(`svc serve: cannot listen on ${hostname}:${port}: ${(err as Error).message}`);
    return 1;
  }
  const bound = server.port;
  handler = app.handler({ hostname, port: bound, checkToken, onError, ui: flags.ui === true });
  const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
  console.error(
    `svc serve: listening on http://${shown}:${bound} (worktree ${app.runtime.worktree}; ${auth})`,
  );
  if (flags.ui) {
    const login = checkToken ? "; it asks for the token once per tab" : "";
    console.error(`svc serve: web page at http://${shown}:${bound}/${login}`);
  }

  await serveUntilStopped(app, server);
  return 0;
}

type McpEndpointArgs = Parameters<typeof import("../mcp/mod.ts").createMcpHttpEndpoint>;

/**
 * The POST /mcp endpoint. `svc serve` builds it on its first request (`lazyEndpoint`), so the MCP
 * SDK loads only then: an idle server holds about 9 MiB less (docs/performance.md).
 */
async function mcpEndpoint(...args: McpEndpointArgs) {
  return (await import("../mcp/mod.ts")).createMcpHttpEndpoint(...args);
}

/**
 * Waits until `server` finishes: SIGINT or SIGTERM closes `app` (cancelling a running turn) and
 * shuts the server down; a second signal, or requests still in flight after the grace, exit.
 */
async function serveUntilStopped(
  app: { lock: { busy: boolean }; close(): Promise<void> },
  server: { shutdown(): Promise<void>; finished: Promise<void> },
): Promise<void> {
  let signals = 0;
  const stop = () => {
    if (++signals > 1) Deno.exit(130);
    const busy = app.lock.busy ? " (cancelling the running turn)" : "";
    console.error(`svc serve: shutting down${busy}`);
    app.close().finally(() => server.shutdown());
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
}

function usage(message: string): number {
  console.error(`svc serve: ${message}`);
  return 2;
}
