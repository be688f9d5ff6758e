/** mcp_connect, mcp_list and mcp_disconnect: the model's (and the user's) handle on MCP servers. */
import type { Zod } from "../../../../src/plugin/api.ts";
import { commandSandbox } from "../../../../src/tool/shell.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../../src/plugin/api.ts";
import type { McpClients } from "./clients.ts";
import type { ServerEntry } from "./types.ts";

/** The configured servers and this runtime's client state; an error result when unusable. */
async function setup(
  ctx: ToolContext,
): Promise<{ entries: ServerEntry[]; clients: McpClients } | ToolOutput> {
  if (!ctx.host) return fail("Error: this tool needs the runtime's tool host; run it inside svc");
  const entries = ctx.config["mcp.servers"];
  if (!entries.length) {
    return fail(
      "Error: no MCP servers are configured; add them to mcp.servers in ~/.config/svc/config.json " +
        "(a worktree's own .svc/config.json counts only once it is trusted with svc trust)",
    );
  }
  const { clientsFor } = await import("./clients.ts");
  return { entries, clients: clientsFor(ctx.host, ctx.worktree) };
}

/** The entry named `server`, or an error result naming the configured ones. */
function pick(entries: ServerEntry[], server: string): ServerEntry | ToolOutput {
  const entry = entries.find((e) => e.name === server);
  if (entry) return entry;
  const names = entries.map((e) => e.name).join(", ");
  return fail(`Error: no MCP server named ${JSON.stringify(server)}; configured: ${names}`);
}

/** Without servers there is nothing to connect: the tools are then not offered at all. */
function noServers(config: ToolContext["config"]): string | undefined {
  return config["mcp.servers"].length ? undefined : "no MCP servers are configured (mcp.servers)";
}

function fail(content: string): ToolOutput {
  return { content, ok: false };
}

function isOutput(value: unknown): value is ToolOutput {
  return typeof (value as ToolOutput).content === "string";
}

export const mcpConnectTool: Tool = {
  name: "mcp_connect",
  category: "mcp",
  description: "Connect a configured MCP server (all when server is omitted) and import its " +
    "tools as <prefix>.<tool>; they are offered from the next prompt on",
  schema: (z: Zod) =>
    z.object({
      server: z.string().optional().describe("server name from mcp_list; omit for all"),
    }),
  argAliases: { name: "server" },
  usesHost: true,
  unavailable: noServers,
  async run(args, ctx) {
    const ready = await setup(ctx);
    if (isOutput(ready)) return ready;
    const server = args.server as string | undefined;
    if (server !== undefined) {
      const entry = pick(ready.entries, server);
      if (isOutput(entry)) return entry;
    }
    const reports = await ready.clients.connect(ready.entries, {
      name: server,
      signal: ctx.signal,
      sandbox: commandSandbox(ctx),
    });
    return {
      content: reports.map((r) => r.text).join("\n"),
      ok: reports.some((r) => r.ok),
      status: reports.map((r) => `${r.server} ${r.ok ? "connected" : "failed"}`).join(", "),
    };
  },
};

export const mcpListTool: Tool = {
  name: "mcp_list",
  category: "mcp",
  description: "List the configured MCP servers, their state and the tools imported from each",
  schema: (z: Zod) => z.object({}),
  usesHost: true,
  unavailable: noServers,
  async run(_args, ctx) {
    const ready = await setup(ctx);
    if (isOutput(ready)) return ready;
    return await ready.clients.describe(ready.entries, ctx.signal);
  },
};

export const mcpDisconnectTool: Tool = {
  name: "mcp_disconnect",
  category: "mcp",
  description: "Disconnect an MCP server; its tools are withdrawn from the next prompt on",
  schema: (z: Zod) => z.object({ server: z.string().describe("server name from mcp_list") }),
  argAliases: { name: "server" },
  usesHost: true,
  unavailable: noServers,
  async run(args, ctx) {
    const ready = await setup(ctx);
    if (isOutput(ready)) return ready;
    const entry = pick(ready.entries, args.server as string);
    if (isOutput(entry)) return entry;
    return await ready.clients.disconnect(entry);
  },
};
