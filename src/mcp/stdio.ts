import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, type McpHost } from "./server.ts";
import { LineTransport } from "./stdio_wire.ts";

/**
 * Serves MCP on this process's stdin and stdout (newline-delimited JSON-RPC): the opening message
 * selects the era (`server/discover` or an enveloped request: 2026-07-28; `initialize`: legacy).
 * Only JSON-RPC is written to stdout. The client is the process that started `svc mcp`, so it
 * counts as authenticated. The connection's instance watches the sessions folder and sends
 * `notifications/resources/updated` for subscribed sessions. Resolves `closed` once stdin has
 * ended and every request read has been answered, or when `close` is called.
 */
export function serveMcpStdio(
  host: McpHost,
  options: { onError?: (error: Error) => void } = {},
): { closed: Promise<void>; close(): Promise<void> } {
  const wire = new LineTransport(Deno.stdin.readable, Deno.stdout.writable);
  const handle = serveStdio(
    ({ era }) => createMcpServer(host, { client: { authenticated: true }, era, updates: "watch" }),
    {
      transport: wire,
      onerror: options.onError,
    },
  );
  return {
    closed: wire.drained,
    async close() {
      await handle.close();
      await wire.close();
    },
  };
}
