import assert from "node:assert/strict";
import { app, assertJsonHeaders, sessionFiles } from "./_app.ts";
import { echoTool } from "../_support/engine.ts";
import { VERSION } from "../../src/version.ts";
import { statusFor } from "../../src/http/mod.ts";
import { pathOf } from "../../src/http/handler.ts";
import { SessionStore } from "../../src/session/store.ts";

Deno.test("GET /health answers ok as JSON without CORS headers", async () => {
  await using a = await app([]);
  const res = await a.call("GET", "/health");
  assert.equal(res.status, 200);
  assertJsonHeaders(res);
  assert.deepEqual(Object.fromEntries(res.headers), {
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  assert.deepEqual(await res.json(), { status: "ok" });
});

Deno.test("HEAD /health answers 200 for probes, with the headers and no body", async () => {
  await using a = await app([]);
  const res = await a.call("HEAD", "/health", { auth: false });
  assert.deepEqual([res.status, Object.fromEntries(res.headers), await res.text()], [200, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  }, ""]);
  const sessions = await a.call("HEAD", "/sessions");
  assert.deepEqual([sessions.status, await sessions.text()], [200, ""]);
  const chat = await a.call("HEAD", "/chat");
  assert.deepEqual([chat.status, chat.headers.get("allow")], [405, "POST"]);
  await chat.body?.cancel();
});

Deno.test("GET /version answers the installed version", async () => {
  await using a = await app([]);
  const res = await a.call("GET", "/version");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { version: VERSION });
});

Deno.test("GET /sessions lists nothing in a fresh worktree", async () => {
  await using a = await app([]);
  const res = await a.call("GET", "/sessions");
  assert.equal(res.status, 200);
  assertJsonHeaders(res);
  assert.deepEqual(await res.json(), { sessions: [] });
});

Deno.test("an unknown route is 404 with the error object", async () => {
  await using a = await app([]);
  for (const [method, path] of [["GET", "/nope"], ["POST", "/"], ["DELETE", "/health/"]]) {
    const res = await a.call(method, path);
    assert.equal(res.status, 404, `${method} ${path}`);
    assertJsonHeaders(res);
    assert.deepEqual(await res.json(), { error: "not found" });
  }
});

Deno.test("POST /chat with session_id runs a turn, persists it and /sessions lists it", async () => {
  await using a = await app([{ text: "Hello from the model", usage: { prompt_tokens: 3 } }]);
  const res = await a.call("POST", "/chat", { json: { prompt: "Say hello", session_id: "demo" } });
  assert.equal(res.status, 200);
  assertJsonHeaders(res);
  const { duration, ...result } = await res.json();
  assert.equal(typeof duration, "number");
  assert.deepEqual(result, {
    content: "Hello from the model",
    thinking: "",
    tool_calls: [],
    errors: [],
    usage: { prompt_tokens: 3 },
    cost_usd: null,
    model: "fake-model",
    provider: "generic",
    session: "demo",
    status: "ok",
    reason: "answered",
    rounds: 1,
    context: { estimated_tokens: result.context.estimated_tokens, window: 32768 },
  });
  assert.deepEqual(await (await a.call("GET", "/sessions")).json(), { sessions: ["demo"] });
  const stored = await a.store.read("demo");
  assert.deepEqual(stored.messages.map((m) => [m.role, m.content]), [
    ["user", "Say hello"],
    ["assistant", "Hello from the model"],
  ]);
});

Deno.test("POST /chat with the same session_id continues the conversation", async () => {
  await using a = await app([{ text: "first" }, { text: "second" }]);
  await a.call("POST", "/chat", { json: { prompt: "one", session_id: "talk" } });
  const res = await a.call("POST", "/chat", { json: { prompt: "two", session_id: "talk" } });
  assert.equal((await res.json()).content, "second");
  const sent = a.fake.requests[1].body.messages
    .filter((m: { role: string }) => m.role !== "system")
    .map((m: { role: string; content: string }) => [m.role, m.content]);
  assert.deepEqual(sent, [["user", "one"], ["assistant", "first"], ["user", "two"]]);
});

Deno.test("POST /chat without session_id creates a fresh named session", async () => {
  await using a = await app([{ text: "ok" }]);
  const res = await a.call("POST", "/chat", { json: { prompt: "Plan the trip" } });
  const body = await res.json();
  assert.equal(res.status, 200);
  assert.match(body.session, /^ses_\d{8}_\d{6}_plan-the-trip$/);
  assert.deepEqual(await sessionFiles(a.worktree), [`${body.session}.json`]);
});

Deno.test("two POST /chat without session_id in the same second get separate sessions", async () => {
  await using a = await app([{ text: "one" }, { text: "two" }]);
  const first = await (await a.call("POST", "/chat", { json: { prompt: "Same words" } })).json();
  const second = await (await a.call("POST", "/chat", { json: { prompt: "Same words" } })).json();
  assert.notEqual(first.session, second.session);
  assert.equal(await a.store.exists(first.session), true);
  assert.equal((await a.store.read(first.session)).messages[1].content, "one");
  assert.equal((await a.store.read(second.session)).messages[1].content, "two");
});

Deno.test("POST /chat answers 502 with the TurnResult when the turn ends in error", async () => {
  await using a = await app([{ status: 500 }, { status: 500 }, { status: 500 }]);
  const res = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: "broken" } });
  assert.equal(res.status, 502);
  assertJsonHeaders(res);
  const body = await res.json();
  assert.equal(body.status, "error");
  assert.equal(body.session, "broken");
  assert.equal(body.errors.length, 1);
  assert.equal((await a.store.read("broken")).errors.length, 1);
});

Deno.test("turn statuses map to HTTP statuses", () => {
  assert.deepEqual(
    (["ok", "truncated", "empty", "error", "cancelled"] as const).map(statusFor),
    [200, 200, 200, 502, 503],
  );
});

Deno.test("POST /chat after shutdown began is 503 and runs nothing", async () => {
  await using a = await app([{ text: "never" }]);
  a.shutdown.abort();
  const res = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: "late" } });
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { error: "server is shutting down" });
  assert.equal(a.fake.requests.length, 0);
  assert.deepEqual(await sessionFiles(a.worktree), []);
});

Deno.test("a shutdown during a stalled turn cancels it and keeps the session", async () => {
  await using a = await app([{ stall: true, text: "partial answer" }]);
  const pending = a.call("POST", "/chat", { json: { prompt: "wait", session_id: "stalled" } });
  while (a.fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  a.shutdown.abort();
  const res = await pending;
  assert.equal(res.status, 503);
  const body = await res.json();
  assert.equal(body.status, "cancelled");
  const stored = await a.store.read("stalled");
  assert.deepEqual(stored.messages.map((m) => [m.role, m.content]), [
    ["user", "wait"],
    ["assistant", "partial answer"],
  ]);
});

Deno.test("a client that disconnects cancels its turn, which is saved; a queued one never runs", async () => {
  await using a = await app([{ stall: true, text: "partial answer" }, { text: "never" }]);
  const first = new AbortController();
  const second = new AbortController();
  const running = a.call("POST", "/chat", {
    json: { prompt: "wait", session_id: "gone" },
    signal: first.signal,
  });
  while (a.fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  const queued = a.call("POST", "/chat", {
    json: { prompt: "later", session_id: "queued" },
    signal: second.signal,
  });
  await new Promise((r) => setTimeout(r, 50));
  second.abort();
  const left = await queued;
  assert.deepEqual([left.status, await left.json()], [499, { error: "client closed the request" }]);
  first.abort();
  const res = await running;
  assert.equal(res.status, 503);
  assert.equal((await res.json()).status, "cancelled");
  assert.deepEqual((await a.store.read("gone")).messages.map((m) => [m.role, m.content]), [
    ["user", "wait"],
    ["assistant", "partial answer"],
  ]);
  assert.equal(a.fake.requests.length, 1);
  assert.deepEqual(await sessionFiles(a.worktree), ["gone.json"]);
});

Deno.test("concurrent POST /chat requests run one at a time, in arrival order", async () => {
  // Each reply streams for about 150 ms; overlapping turns would start within a few ms.
  const script = (i: number) => ({ text: `answer ${i} `.repeat(5), chunkSize: 8, delayMs: 20 });
  await using a = await app([0, 1, 2].map(script));
  const starts: number[] = [];
  const watch = setInterval(() => {
    while (starts.length < a.fake.requests.length) starts.push(performance.now());
  }, 1);
  const responses = await Promise.all(
    [0, 1, 2].map((i) =>
      a.call("POST", "/chat", { json: { prompt: `q${i}`, session_id: `s${i}` } })
    ),
  );
  clearInterval(watch);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.deepEqual(bodies.map((b) => [b.session, b.content.split(" ").slice(0, 2)]), [
    ["s0", ["answer", "0"]],
    ["s1", ["answer", "1"]],
    ["s2", ["answer", "2"]],
  ]);
  assert.equal(starts.length, 3);
  assert.ok(starts[1] - starts[0] >= 100, `second turn started ${starts[1] - starts[0]} ms after`);
  assert.ok(starts[2] - starts[1] >= 100, `third turn started ${starts[2] - starts[1]} ms after`);
});

Deno.test("request paths are cut from the URL without query or fragment", () => {
  assert.deepEqual(
    [
      "http://127.0.0.1:8787/health",
      "http://127.0.0.1:8787/chat?x=/y",
      "http://[::1]:80/sessions#top",
      "http://localhost:8787",
      "http://h/a%2Fb",
      "http://h/p#x?y",
    ].map(pathOf),
    ["/health", "/chat", "/sessions", "/", "/a%2Fb", "/p"],
  );
});

Deno.test("a session changed or deleted by another process between turns is respected", async () => {
  await using a = await app([{ text: "one" }, { text: "two" }, { text: "three" }]);
  const chat = (prompt: string) =>
    a.call("POST", "/chat", { json: { prompt, session_id: "shared" } });
  await (await chat("first")).body?.cancel();
  const other = await new SessionStore(a.worktree).openOrCreate("shared");
  await other.appendMessage({ role: "user", content: "from the REPL", timestamp: "t" });
  await (await chat("second")).body?.cancel();
  assert.deepEqual((await a.store.read("shared")).messages.map((m) => m.content), [
    "first",
    "one",
    "from the REPL",
    "second",
    "two",
  ]);
  await a.store.delete("shared");
  await (await chat("third")).body?.cancel();
  assert.deepEqual((await a.store.read("shared")).messages.map((m) => m.content), [
    "third",
    "three",
  ]);
});

Deno.test("served turns are headless: an ask-gated tool call is denied with [cancelled]", async () => {
  await using a = await app([
    { tool_calls: [{ name: "writer", arguments: { text: "overwrite" } }] },
    { text: "could not write" },
  ], { tools: [echoTool("writer", "edit")] });
  const res = await a.call("POST", "/chat", { json: { prompt: "write it", session_id: "h" } });
  const body = await res.json();
  assert.equal(res.status, 200);
  assert.deepEqual(
    body.tool_calls.map((c: { name: string; decision: string; ok: boolean }) => [
      c.name,
      c.decision,
      c.ok,
    ]),
    [["writer", "ask", false]],
  );
  const fed = a.fake.requests[1].body.messages.at(-1);
  assert.deepEqual([fed.role, fed.content], ["tool", "[cancelled]"]);
  const audit = (await a.store.read("h")).permissions.map((p) => [p.outcome, p.by]);
  assert.deepEqual(audit, [["denied", "policy"]]);
});
