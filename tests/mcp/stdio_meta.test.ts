import assert from "node:assert/strict";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { LineTransport } from "../../src/mcp/stdio_wire.ts";
import { app } from "../http/_app.ts";
import { ENVELOPE } from "./_clients.ts";

/** Feeds `lines` to a LineTransport; returns what it passed on and what it answered itself. */
async function wire(lines: unknown[]) {
  const bytes = new TextEncoder().encode(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const written: string[] = [];
  const transport = new LineTransport(
    new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
    new WritableStream({ write: (chunk) => void written.push(new TextDecoder().decode(chunk)) }),
  );
  const passed: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    passed.push(message);
    if (isJSONRPCRequest(message)) {
      void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  };
  await transport.start();
  await transport.drained;
  const answered = written.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .filter((m) => "error" in m);
  return { passed: passed.map((m) => isJSONRPCRequest(m) ? m.id : null), answered };
}

const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } };
const bare = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });

Deno.test("after server/discover, stdio refuses a request without _meta with POST /mcp's -32602", async () => {
  const stdio = await wire([
    discover,
    bare(2),
    { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: ENVELOPE } },
  ]);
  assert.deepEqual(stdio.passed, [1, 3]);
  await using a = await app([]);
  const res = await a.call("POST", "/mcp", {
    body: JSON.stringify(bare(2)),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
  });
  assert.equal(res.status, 400);
  const http = await res.json();
  assert.equal(http.error.code, -32602);
  assert.deepEqual(stdio.answered, [http]);
});

Deno.test("a legacy stdio connection, or a discover probe followed by initialize, is not held to _meta", async () => {
  const initialize = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  });
  assert.deepEqual(await wire([initialize(1), bare(2)]), { passed: [1, 2], answered: [] });
  assert.deepEqual(await wire([discover, initialize(2), bare(3)]), {
    passed: [1, 2, 3],
    answered: [],
  });
});
