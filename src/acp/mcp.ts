/**
 * The editor's `mcpServers` of `session/new` and `session/load` as svc `mcp.servers` entries,
 * connected by svc's MCP client (plugins/svc-core-mcp) when the session's runtime starts: stdio
 * and HTTP; SSE is not advertised and is refused. Names are made valid (`[A-Za-z0-9_-]`, at most
 * 32) and distinct, since they prefix the imported tools (`<name>.<tool>`).
 */
import type * as acp from "@agentclientprotocol/sdk";

/** The svc entries of the editor's servers, or the problem with one. */
export function mcpEntries(
  servers: readonly acp.McpServer[],
): Record<string, unknown>[] | { problem: string } {
  const names = new Set<string>();
  const entries: Record<string, unknown>[] = [];
  for (const server of servers) {
    const name = uniqueName(server.name, names);
    if ("type" in server && server.type === "sse") {
      return { problem: `MCP server ${server.name}: SSE servers are not supported; use HTTP` };
    }
    if ("type" in server && server.type === "http") {
      entries.push({
        name,
        transport: "http",
        url: server.url,
        headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
        autoconnect: true,
      });
      continue;
    }
    const stdio = server as acp.McpServerStdio;
    entries.push({
      name,
      transport: "stdio",
      command: stdio.command,
      args: stdio.args,
      env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])),
      autoconnect: true,
    });
  }
  return entries;
}

function uniqueName(wanted: string, taken: Set<string>): string {
  const base = wanted.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 29) || "mcp";
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}
