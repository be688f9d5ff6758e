import { Command } from "commander";
import { addLoginCommands } from "./mcp_login_cmd.ts";

/** `svc mcp`: svc's tools and sessions as an MCP server on stdio; stdout carries only JSON-RPC. */
export function mcpCommand(setExit: (code: number) => void): Command {
  const mcp = new Command("mcp")
    .description("Serve svc's tools and sessions over MCP on stdio (newline-delimited JSON-RPC)")
    .option("--path <dir>", "worktree (default: the current directory)")
    .action(async (flags: { path?: string }) => setExit(await serveMcp(flags)));
  // `svc mcp login|logout <server>`: signing in to the http servers svc's MCP client connects.
  addLoginCommands(mcp, setExit);
  return mcp;
}

/** Loads the server modules only when serving: the MCP SDK is too heavy for every startup. */
async function serveMcp(flags: { path?: string }): Promise<number> {
  keepStdoutForJsonRpc();
  const [{ Mutex }, { serveMcpStdio }, { Runtime }, { servedHost }] = await Promise.all([
    import("../http/lock.ts"),
    import("../mcp/mod.ts"),
    import("../runtime/runtime.ts"),
    import("../runtime/served_host.ts"),
  ]);
  const warn = (message: string) => console.error(`svc mcp: warning: ${message}`);
  let runtime;
  try {
    // No provider is needed to serve tools: the runtime is loaded without connecting. A sessions
    // folder that leads outside an untrusted worktree is refused here.
    runtime = await Runtime.load({ path: flags.path });
  } catch (err) {
    console.error(`svc mcp: ${(err as Error).message}`);
    return 1;
  }
  runtime.warnings.forEach(warn);
  const lock = new Mutex();
  const shutdown = new AbortController();
  const host = servedHost(runtime, {
    serialize: (fn, signal) => lock.run(fn, signal),
    shutdown: shutdown.signal,
    warn,
  });
  const server = serveMcpStdio(host, {
    onError: (error) => console.error(`svc mcp: ${error.message}`),
  });
  const stop = () => {
    shutdown.abort();
    void server.close();
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.closed;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  return 0;
}

/** Sends console output that would reach stdout to stderr: stdout is the JSON-RPC channel. */
function keepStdoutForJsonRpc(): void {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
}
