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
    const client = await v2Http(URL_MCP, era, a.fetch);
    try {
      assert.equal(
        client.getNegotiatedProtocolVersion(),
        era === "auto" ? "2026-07-28" : "2025-11-25",
      );
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["echo", "writer"]);
      assert.deepEqual(tools[0].inputSchema, {
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
  const client = await v1Http(URL_MCP, a.fetch);
  try {
    assert.deepEqual(client.getServerVersion(), { name: "svc", version: VERSION });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["echo", "writer"]);
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
  const client = await v2Http(URL_MCP, "auto", a.fetch);
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

Deno.test("allow_ask true: an ask-policy tool runs for the authenticated MCP client and is audited", async () => {
  await using a = await withSession();
  const client = await v2Http(URL_MCP, "auto", a.fetch);
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
  const client = await v2Http(URL_MCP, "legacy", a.fetch);
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
  assert.equal((await ok.json()).result.tools[0].name, "echo");
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

Deno.test("without a token (--no-auth) an ask-policy tool is refused over MCP, even with allow_ask", async () => {
  await using a = await app([], {
    tools: [echoTool("echo", "read"), echoTool("writer", "edit")],
    config: { "mcp_server.allow_ask": true },
    token: null,
  });
  for (const era of ["auto", "legacy"] as const) {
    const client = await v2Http(URL_MCP, era, handlerFetch(a.handler));
    try {
      const called = await client.callTool({ name: "writer", arguments: { text: "go" } });
      assert.deepEqual([called.content, called.isError], [
        [{
          type: "text",
          text: "Error: writer needs confirmation (edit category is ask) and this MCP client is " +
            "not authenticated (svc serve --no-auth); serve with a token to let clients confirm",
        }],
        true,
      ]);
      const read = await client.callTool({ name: "echo", arguments: { text: "fine" } });
      assert.deepEqual(read.content, [{ type: "text", text: 'echo: {"text":"fine"}' }]);
    } finally {
      await client.close();
    }
  }
});

Deno.test("the ask tool, which no MCP client can answer, is not offered", async () => {
  await using a = await withSession();
  const client = await v2Http(URL_MCP, "auto", a.fetch);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.some((t) => t.name === "ask"), false);
    await assert.rejects(
      client.callTool({ name: "ask", arguments: { question: "why?" } }),
      /Tool ask not found/,
    );
  } finally {
    await client.close();
  }
});

Deno.test("POST /mcp replies carry the headers of every other route", async () => {
  await using a = await app([]);
  const send = (body: string, headers: Record<string, string> = {}) =>
    a.call("POST", "/mcp", { body, headers: { ...MCP_HEADERS, ...headers } });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const replies = [
    await send(list),
    await send(list.replace("{}", JSON.stringify({ _meta: ENVELOPE })), {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    }),
    await send("{nope"),
    await a.call("GET", "/mcp"),
  ];
  assert.deepEqual(
    await Promise.all(replies.map(async (res) => {
      await res.body?.cancel();
      const headers = Object.fromEntries(res.headers);
      delete headers.allow;
      delete headers["content-length"];
      return [res.status, headers];
    })),
    [200, 200, 400, 405].map((status) => [status, {
      "content-type": "application/json",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    }]),
  );
});

Deno.test("JSON-RPC batches are refused in the revisions that removed them", async () => {
  await using a = await app([]);
  const list = (id: number, params: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/list",
    params,
  });
  const send = async (body: unknown, version?: string) => {
    const res = await a.call("POST", "/mcp", {
      body: JSON.stringify(body),
      headers: { ...MCP_HEADERS, ...(version ? { "mcp-protocol-version": version } : {}) },
    });
    return [res.status, await res.json()];
  };
  const refused = (version: string) => [400, {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message: "Invalid Request: JSON-RPC batches were removed in MCP revision 2025-06-18 and " +
        `this request speaks ${version}; send one JSON-RPC message per POST`,
    },
  }];
  for (const version of ["2025-06-18", "2025-11-25"]) {
    assert.deepEqual(await send([list(1), list(2)], version), refused(version));
  }
  const modern = await send([list(1, { _meta: ENVELOPE }), list(2, { _meta: ENVELOPE })]);
  assert.deepEqual([modern[0], modern[1].error.code], [400, -32600]);
  assert.deepEqual(await send([list(1, { _meta: ENVELOPE })], "2026-07-28"), refused("2026-07-28"));
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-03-26",
      capabilities: {},
      clientInfo: { name: "batcher", version: "1" },
    },
  };
  assert.deepEqual(await send([initialize]), [400, {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32600,
      message: "Invalid Request: initialize must be sent alone, not in a JSON-RPC batch",
    },
  }]);
  // 2025-03-26 had batches (and is what a request without the header is taken to speak).
  for (const version of ["2025-03-26", undefined]) {
    const [status, body] = await send([list(1), list(2)], version);
    assert.deepEqual([status, body.map((r: { id: number }) => r.id)], [200, [1, 2]]);
  }
});

Deno.test("closing a POST /mcp request cancels its running tool call, in both eras", async () => {
  let started = 0;
  let cancelled = 0;
  const slow = {
    ...echoTool("slow", "read"),
    run: (_args: Record<string, unknown>, ctx: { signal: AbortSignal }) =>
      new Promise<string>((resolve) => {
        started++;
        const timer = setTimeout(() => resolve("finished anyway"), 5000);
        ctx.signal.addEventListener("abort", () => {
          cancelled++;
          clearTimeout(timer);
          resolve("stopped");
        }, { once: true });
      }),
  };
  await using a = await app([], { tools: [slow] });
  for (const era of ["modern", "legacy"]) {
    const client = new AbortController();
    const call = { name: "slow", arguments: { text: "wait" } };
    const params = era === "modern" ? { ...call, _meta: ENVELOPE } : call;
    const headers: Record<string, string> = era === "modern"
      ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "slow" }
      : {};
    const pending = a.call("POST", "/mcp", {
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params }),
      headers: { ...MCP_HEADERS, ...headers },
      signal: client.signal,
    }).catch((err) => err);
    while (started < (era === "modern" ? 1 : 2)) await new Promise((r) => setTimeout(r, 5));
    const at = performance.now();
    client.abort();
    const res = await pending;
    // A 2025-era tools/call from a client that accepts SSE is streamed from the start (progress
    // may precede the result); the modern reply stays JSON until something precedes it.
    assert.equal(res.status, era === "modern" ? 499 : 200, era);
    await res.body?.cancel().catch(() => {});
    while (a.lock.busy && performance.now() - at < 3000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(a.lock.busy, false, `${era}: the tool call kept the lock`);
    assert.equal(cancelled, era === "modern" ? 1 : 2, `${era}: the tool was not cancelled`);
  }
  // The streamed call's audit line is written as its instance closes, just after the hang-up.
  const path = `${a.worktree}/.svc/logs/mcp_audit.jsonl`;
  const read = async () => (await Deno.readTextFile(path).catch(() => "")).trim().split("\n");
  for (const at = performance.now(); performance.now() - at < 3000;) {
    if ((await read()).length >= 2) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.deepEqual((await read()).map((line) => JSON.parse(line).outcome), [
    "cancelled",
    "cancelled",
  ]);
});
