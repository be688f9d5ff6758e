import assert from "node:assert/strict";
import { app, BASE } from "../http/_app.ts";
import { echoTool } from "../_support/engine.ts";
import { ENVELOPE, handlerFetch, v1Http, v2Http } from "./_clients.ts";
import { VERSION } from "../../src/version.ts";

const URL_MCP = `${BASE}/mcp`;
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A worktree with one real session (written by a /chat turn) and the echo tool. */
async function withSession() {
  const a = await app([{ text: "stored answer" }], {
    tools: [echoTool("echo", "read"), echoTool("writer", "edit")],
  });
  const res = await a.call("POST", "/chat", { json: { prompt: "remember", session_id: "kept" } });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  return a;
}

for (const era of ["auto", "legacy"] as const) {
  Deno.test(`v2 client (${era}) lists and calls tools and reads a session over POST /mcp`, async () => {
    await using a = await withSession();
    const client = await v2Http(URL_MCP, era, handlerFetch(a.handler));
    try {
      assert.equal(
        client.getNegotiatedProtocolVersion(),
        era === "auto" ? "2026-07-28" : "2025-11-25",
      );
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["ask", "echo", "writer"]);
      assert.deepEqual(tools[1].inputSchema, {
        type: "object",
        properties: { text: { type: "string" }, path: { type: "string" } },
        required: ["text"],
      });
      const called = await client.callTool({ name: "echo", arguments: { words: "hi", junk: 1 } });
      assert.deepEqual(called.content, [{ type: "text", text: 'echo: {"text":"hi"}' }]);
      assert.equal(called.isError, undefined);
      const { resources } = await client.listResources();
      assert.deepEqual(resources, [{
        uri: "svc://session/kept",
        name: "kept",
        mimeType: "application/json",
        description: "A saved svc session log (read-only)",
      }]);
      const read = await client.readResource({ uri: "svc://session/kept" });
      assert.equal(read.contents.length, 1);
      const [content] = read.contents as Array<{ uri: string; mimeType: string; text: string }>;
      assert.deepEqual([content.uri, content.mimeType], ["svc://session/kept", "application/json"]);
      const doc = JSON.parse(content.text);
      assert.deepEqual(doc, await a.store.read("kept"));
      assert.deepEqual(doc.messages.map((m) => m.content), [
        "remember",
        "stored answer",
      ]);
    } finally {
      await client.close();
    }
  });
}

Deno.test("v1 SDK client (legacy) lists and calls tools over POST /mcp", async () => {
  await using a = await withSession();
  const client = await v1Http(URL_MCP, handlerFetch(a.handler));
  try {
    assert.deepEqual(client.getServerVersion(), { name: "svc", version: VERSION });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["ask", "echo", "writer"]);
    const called = await client.callTool({ name: "echo", arguments: { text: "v1" } });
    assert.deepEqual(called.content, [{ type: "text", text: 'echo: {"text":"v1"}' }]);
    const read = await client.readResource({ uri: "svc://session/kept" });
    assert.equal(JSON.parse(read.contents[0].text as string).name, "kept");
  } finally {
    await client.close();
  }
});

Deno.test("reading a session that is not saved is a resource-not-found error", async () => {
  await using a = await withSession();
  const client = await v2Http(URL_MCP, "auto", handlerFetch(a.handler));
  try {
    for (
      const uri of ["svc://session/missing", "svc://session/..%2Fconfig", "svc://session/../x"]
    ) {
      await assert.rejects(client.readResource({ uri }), /not found/i, uri);
    }
  } finally {
    await client.close();
  }
});

Deno.test("allow_ask true: an ask-policy tool runs for the MCP client and is audited", async () => {
  await using a = await withSession();
  const client = await v2Http(URL_MCP, "auto", handlerFetch(a.handler));
  try {
    const called = await client.callTool({ name: "writer", arguments: { text: "go" } });
    assert.deepEqual([called.content, called.isError], [
      [{ type: "text", text: 'echo: {"text":"go"}' }],
      undefined,
    ]);
  } finally {
    await client.close();
  }
  const audit = (await Deno.readTextFile(`${a.worktree}/.svc/logs/mcp_audit.jsonl`)).trim();
  const { at, call_id, ...record } = JSON.parse(audit);
  assert.match(at, /^\d{4}-/);
  assert.match(call_id, /^mcp_[0-9a-f]{8}$/);
  assert.deepEqual(record, {
    tool: "writer",
    category: "edit",
    action: "ask",
    outcome: "approved",
    by: "client",
    scope: "once",
    reason: "edit category is ask",
  });
});

Deno.test("allow_ask false: an ask-policy tool is refused over MCP", async () => {
  await using a = await app([], {
    tools: [echoTool("writer", "edit")],
    config: { "mcp_server.allow_ask": false },
  });
  const client = await v2Http(URL_MCP, "legacy", handlerFetch(a.handler));
  try {
    const called = await client.callTool({ name: "writer", arguments: { text: "go" } });
    assert.deepEqual(called, {
      content: [{
        type: "text",
        text:
          "Error: writer needs confirmation (edit category is ask) and mcp_server.allow_ask is false",
      }],
      isError: true,
    });
  } finally {
    await client.close();
  }
});

Deno.test("a modern request missing its _meta envelope is JSON-RPC -32602", async () => {
  await using a = await app([]);
  const send = (params: Record<string, unknown>) =>
    a.call("POST", "/mcp", {
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params }),
      headers: { ...MCP_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    });
  for (
    const params of [{}, { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }]
  ) {
    const res = await send(params);
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.deepEqual([body.id, body.error.code], [7, -32602]);
  }
  const ok = await send({ _meta: ENVELOPE });
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).result.tools[0].name, "ask");
});

Deno.test("POST /mcp keeps the host's hardening: text/plain 415, foreign Origin 403", async () => {
  await using a = await app([]);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const plain = await a.call("POST", "/mcp", {
    body,
    headers: { ...MCP_HEADERS, "content-type": "text/plain" },
  });
  assert.deepEqual([plain.status, await plain.json()], [415, {
    error: "request body must be sent as Content-Type: application/json",
  }]);
  const foreign = await a.call("POST", "/mcp", {
    body,
    headers: { ...MCP_HEADERS, origin: "https://evil.example" },
  });
  assert.deepEqual([foreign.status, await foreign.json()], [403, {
    error: "forbidden: cross-origin requests are refused",
  }]);
  const bad = await a.call("POST", "/mcp", { body: "{nope", headers: MCP_HEADERS });
  assert.deepEqual([bad.status, await bad.json()], [400, {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error: the body is not valid JSON" },
  }]);
});

Deno.test("the 2024-11-05 HTTP+SSE transport is answered with a clear 405", async () => {
  await using a = await app([]);
  for (const method of ["GET", "DELETE"]) {
    const res = await a.call(method, "/mcp", { headers: { accept: "text/event-stream" } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message:
          "Method not allowed: svc serves MCP over streamable HTTP as one JSON-RPC request per POST; GET and DELETE session streams and the deprecated 2024-11-05 HTTP+SSE transport are not implemented",
      },
    });
  }
});

Deno.test("without the MCP plugin the /mcp route does not exist", async () => {
  await using a = await app([], { mcp: false });
  const res = await a.call("POST", "/mcp", {
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    headers: MCP_HEADERS,
  });
  assert.deepEqual([res.status, await res.json()], [404, { error: "not found" }]);
});
