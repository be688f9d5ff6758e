import assert from "node:assert/strict";
import { app, assertJsonHeaders, sessionFiles } from "./_app.ts";

/** Every hostile request below must be refused without reaching the provider or a session. */
async function refused(
  a: Awaited<ReturnType<typeof app>>,
  res: Response,
  status: number,
  error: string,
): Promise<void> {
  assert.equal(res.status, status);
  assertJsonHeaders(res);
  assert.deepEqual(await res.json(), { error });
  assert.equal(a.fake.requests.length, 0);
  assert.deepEqual(await sessionFiles(a.worktree), []);
}

const CHAT = { prompt: "hi", session_id: "victim" };

Deno.test("a foreign Host (DNS rebinding) is refused with 403 before routing", async () => {
  await using a = await app([{ text: "never" }]);
  for (
    const host of ["evil.example:8787", "127.0.0.1:9999", "localhost", "127.0.0.1.nip.io:8787"]
  ) {
    const res = await a.call("POST", "/chat", { json: CHAT, headers: { host } });
    await refused(a, res, 403, "forbidden: Host is not a loopback name for this port");
  }
  const res = await a.call("GET", "/nope", { headers: { host: "evil.example" } });
  await refused(a, res, 403, "forbidden: Host is not a loopback name for this port");
});

Deno.test("loopback Host names for the bound port are accepted", async () => {
  await using a = await app([]);
  for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "LOCALHOST:8787"]) {
    const res = await a.call("GET", "/health", { headers: { host } });
    assert.equal(res.status, 200, host);
    await res.body?.cancel();
  }
});

Deno.test("a foreign Origin is refused with 403", async () => {
  await using a = await app([{ text: "never" }]);
  for (const origin of ["https://evil.example", "http://127.0.0.1:9999", "http://localhost"]) {
    const res = await a.call("POST", "/chat", { json: CHAT, headers: { origin } });
    await refused(a, res, 403, "forbidden: cross-origin requests are refused");
  }
});

Deno.test("Origin: null is refused with 403", async () => {
  await using a = await app([{ text: "never" }]);
  const res = await a.call("POST", "/chat", { json: CHAT, headers: { origin: "null" } });
  await refused(a, res, 403, "forbidden: cross-origin requests are refused");
});

Deno.test("a cross-site browser request without Origin is refused by Sec-Fetch-Site", async () => {
  await using a = await app([]);
  const res = await a.call("GET", "/sessions", { headers: { "sec-fetch-site": "cross-site" } });
  await refused(a, res, 403, "forbidden: cross-site requests are refused");
});

Deno.test("POST /chat with text/plain is refused with 415", async () => {
  await using a = await app([{ text: "never" }]);
  const res = await a.call("POST", "/chat", {
    body: JSON.stringify(CHAT),
    headers: { "content-type": "text/plain" },
  });
  await refused(a, res, 415, "request body must be sent as Content-Type: application/json");
});

Deno.test("POST /chat with no Content-Type or a form type is refused with 415", async () => {
  await using a = await app([{ text: "never" }]);
  for (const type of [undefined, "application/x-www-form-urlencoded", "multipart/form-data"]) {
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const res = await a.call("POST", "/chat", { body: new Blob([JSON.stringify(CHAT)]), headers });
    await refused(a, res, 415, "request body must be sent as Content-Type: application/json");
  }
});

Deno.test("POST /chat accepts application/json with a charset parameter", async () => {
  await using a = await app([{ text: "fine" }]);
  const res = await a.call("POST", "/chat", {
    body: JSON.stringify({ prompt: "hi" }),
    headers: { "content-type": "Application/JSON; charset=utf-8" },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).content, "fine");
});

Deno.test("an oversized POST /chat body is refused with 413, declared or streamed", async () => {
  await using a = await app([{ text: "never" }], { handler: { maxChatBytes: 1000 } });
  const big = JSON.stringify({ prompt: "x".repeat(2000) });
  const declared = await a.call("POST", "/chat", {
    body: big,
    headers: { "content-type": "application/json", "content-length": String(big.length) },
  });
  await refused(a, declared, 413, "request body is larger than 1000 bytes");
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(big));
      c.close();
    },
  });
  const streamed = await a.call("POST", "/chat", {
    body: stream,
    headers: { "content-type": "application/json" },
  });
  await refused(a, streamed, 413, "request body is larger than 1000 bytes");
});

Deno.test("a POST /chat body that arrives too slowly is cut off with 408", async () => {
  await using a = await app([{ text: "never" }], { handler: { bodyTimeoutMs: 100 } });
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"prompt":'));
    },
  });
  const started = performance.now();
  const res = await a.call("POST", "/chat", {
    body: stream,
    headers: { "content-type": "application/json" },
  });
  assert.ok(performance.now() - started < 1000);
  await refused(a, res, 408, "request body was not received in time");
});

Deno.test("invalid JSON, empty and non-object bodies are 400", async () => {
  await using a = await app([{ text: "never" }]);
  const cases: Array<[string, string]> = [
    ["{bad", "request body is not valid JSON"],
    ["", "request body is empty; send a JSON object"],
    ["[1,2]", "request body must be a JSON object"],
    ['"hi"', "request body must be a JSON object"],
    ["null", "request body must be a JSON object"],
  ];
  for (const [body, error] of cases) {
    const res = await a.call("POST", "/chat", {
      body,
      headers: { "content-type": "application/json" },
    });
    await refused(a, res, 400, error);
  }
  const latin1 = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]);
  const res = await a.call("POST", "/chat", {
    body: latin1,
    headers: { "content-type": "application/json" },
  });
  await refused(a, res, 400, "request body is not valid UTF-8");
});

Deno.test("a missing, empty or non-string prompt is 400", async () => {
  await using a = await app([{ text: "never" }]);
  for (
    const json of [{}, { prompt: "" }, { prompt: "   \n" }, { prompt: 42 }, { session_id: "x" }]
  ) {
    const res = await a.call("POST", "/chat", { json });
    await refused(a, res, 400, "prompt is required and must be a non-empty string");
  }
});

Deno.test("a bad session_id such as ../x is 400 and touches no file", async () => {
  await using a = await app([{ text: "never" }]);
  const problem =
    "session_id: session name must be 1-128 characters of letters, digits, _ . - and not start with . or contain ..";
  for (const id of ["../x", "..", ".hidden", "a/b", "x".repeat(129), "", "a\u0000b"]) {
    const res = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: id } });
    await refused(a, res, 400, problem);
  }
  const res = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: 7 } });
  await refused(a, res, 400, "session_id must be a string");
});

Deno.test("an unknown field is 400 rather than silently ignored", async () => {
  await using a = await app([{ text: "never" }]);
  const res = await a.call("POST", "/chat", { json: { prompt: "hi", session: "typo" } });
  await refused(
    a,
    res,
    400,
    "unknown field session; expected prompt, session_id, json_schema, json_retries, stream, " +
      "approvals, include_partial_messages and images",
  );
});

Deno.test("GET /chat has no side effects: 405 with Allow: POST", async () => {
  await using a = await app([{ text: "never" }]);
  const res = await a.call("GET", "/chat?prompt=hi&session_id=victim");
  assert.equal(res.headers.get("allow"), "POST");
  await refused(a, res, 405, "method not allowed; /chat accepts POST");
});

Deno.test("POST to a GET route and OPTIONS preflights are 405 without CORS headers", async () => {
  await using a = await app([]);
  const post = await a.call("POST", "/sessions", {
    body: "x",
    headers: { "content-type": "text/plain" },
  });
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  await refused(a, post, 405, "method not allowed; /sessions accepts GET");
  const preflight = await a.call("OPTIONS", "/chat", {
    headers: { "access-control-request-method": "POST" },
  });
  await refused(a, preflight, 405, "method not allowed; /chat accepts POST");
});
