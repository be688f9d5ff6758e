import { Command } from "commander";
import type { ToolRegistry } from "../tool/registry.ts";

/** `svc mcp`: svc's tools and sessions as an MCP server on stdio; stdout carries only JSON-RPC. */
export function mcpCommand(setExit: (code: number) => void): Command {
  return new Command("mcp")
    .description("Serve svc's tools and sessions over MCP on stdio (newline-delimited JSON-RPC)")
    .option("--path <dir>", "worktree (default: the current directory)")
    .action(async (flags: { path?: string }) => setExit(await serveMcp(flags)));
}

/** Loads the server modules only when serving: the MCP SDK is too heavy for every startup. */
async function serveMcp(flags: { path?: string }): Promise<number> {
  keepStdoutForJsonRpc();
  const [
    { loadConfigReport },
    { askTool },
    { Mutex },
    { createMcpHost, serveMcpStdio },
    { loadPlugins },
    { SessionStore },
    { ToolRegistry },
    { resolveWorktree },
  ] = await Promise.all([
    import("../config/load.ts"),
    import("../engine/ask.ts"),
    import("../http/mod.ts"),
    import("../mcp/mod.ts"),
    import("../plugin/load.ts"),
    import("../session/store.ts"),
    import("../tool/registry.ts"),
    import("./compose.ts"),
  ]);
  const warn = (message: string) => console.error(`svc mcp: warning: ${message}`);
  let worktree: string;
  let registry: ToolRegistry;
  let config;
  let trusted = false;
  let store: InstanceType<typeof SessionStore>;
  try {
    worktree = resolveWorktree(flags.path);
    const loaded = await loadConfigReport(worktree);
    config = loaded.config;
    trusted = loaded.trusted;
    loaded.warnings.forEach(warn);
    // No provider is needed to serve tools: the registry is built as composeEngine builds it.
    const plugins = await loadPlugins({
      worktree,
      names: config.plugins,
      trustLocal: loaded.trusted,
    });
    for (const p of plugins.plugins) {
      const failed = p.status === "errored" || p.status === "skipped";
      if (failed && p.origin !== null) warn(`plugin ${p.name}: ${p.message}`);
    }
    registry = new ToolRegistry();
    registry.add(askTool);
    for (const tool of plugins.tools) registry.add(tool);
    store = new SessionStore(worktree, { confine: !loaded.trusted });
  } catch (err) {
    console.error(`svc mcp: ${(err as Error).message}`);
    return 1;
  }
  const lock = new Mutex();
  const shutdown = new AbortController();
  const host = createMcpHost({ config, worktree, registry, trusted }, store, {
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
