import assert from "node:assert/strict";
import { harness } from "../_support/engine.ts";
import { servedHost } from "../../src/runtime/mod.ts";
import { createMcpHttpEndpoint } from "../../src/mcp/mod.ts";

Deno.test("a client's 406 or 415 on POST /mcp is reported as the client's error, not the server's", async () => {
  await using h = await harness([]);
  const shutdown = new AbortController();
  const host = servedHost(h.runtime, {
    serialize: (fn) => fn(),
    shutdown: shutdown.signal,
    warn: () => {},
  });
  const server: string[] = [];
  const client: [number, string][] = [];
  const endpoint = createMcpHttpEndpoint(host, {
    onError: (error) => server.push(error.message),
    onClientError: (error, status) => client.push([status, error.message]),
  });
  try {
    const bad = [
      { accept: "application/json", "content-type": "application/json" },
      { accept: "application/json, text/event-stream", "content-type": "text/plain" },
    ];
    const statuses = [];
    for (const headers of bad) {
      const response = await endpoint.fetch(
        new Request("http://127.0.0.1:8787/mcp", {
          method: "POST",
          headers: { ...headers, "mcp-protocol-version": "2025-06-18" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        }),
      );
      await response.body?.cancel();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [406, 415]);
    assert.deepEqual(server, []);
    assert.deepEqual(client, [
      [406, "Not Acceptable: Client must accept both application/json and text/event-stream"],
      [415, "Unsupported Media Type: Content-Type must be application/json"],
    ]);
  } finally {
    shutdown.abort();
    await endpoint.close?.();
  }
});
