import process from "node:process";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, type McpHost } from "./server.ts";

/**
 * Serves MCP on this process's stdin and stdout (newline-delimited JSON-RPC): the opening message
 * selects the era (`server/discover` or an enveloped request: 2026-07-28; `initialize`: legacy).
 * Only JSON-RPC is written to stdout. Resolves when the client closes stdin or `close` is called.
 */
export function serveMcpStdio(
  host: McpHost,
  options: { onError?: (error: Error) => void } = {},
): { closed: Promise<void>; close(): Promise<void> } {
  let done!: () => void;
  const closed = new Promise<void>((resolve) => done = resolve);
  const handle = serveStdio(() => createMcpServer(host), { onerror: options.onError });
  // The SDK's transport closes when stdin ends; watch stdin too so the caller can exit promptly.
  process.stdin.once("end", () => done());
  process.stdin.once("close", () => done());
  return {
    closed,
    async close() {
      await handle.close();
      done();
    },
  };
}
