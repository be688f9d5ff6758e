/**
 * The `autoconnect` entry key (an svc extension): servers marked with it connect when the
 * runtime starts its first engine (`svc run`, `svc serve`), all at once, each within its own
 * `timeout`, so even a one-shot `svc run` can call their tools in its single turn.
 */
import type { ServiceDef } from "../../../../src/plugin/api.ts";
import { commandSandbox } from "../../../../src/tool/shell.ts";

export const autoconnectService: ServiceDef = {
  name: "mcp-autoconnect",
  async start(ctx) {
    const entries = ctx.config["mcp.servers"].filter((entry) => entry.autoconnect);
    if (!entries.length) return [];
    const { clientsFor } = await import("./clients.ts");
    const clients = clientsFor(ctx.host, ctx.worktree);
    const sandbox = commandSandbox(ctx);
    const reports = await Promise.all(
      entries.map((entry) =>
        clients.connect(entries, {
          name: entry.name,
          signal: AbortSignal.timeout(entry.timeout * 1000),
          sandbox,
        })
      ),
    );
    return reports.flat().filter((r) => !r.ok).map((r) =>
      `MCP autoconnect: ${r.text.replace(/^Error: /, "")}`
    );
  },
};
