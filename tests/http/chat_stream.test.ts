import assert from "node:assert/strict";
import { sseWriter } from "../../src/http/sse.ts";
import { app } from "./_app.ts";

Deno.test("an event stream sends a keep-alive comment only while nothing else is sent", async () => {
  const sse = sseWriter({ keepAliveMs: 40 });
  const reader = sse.response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const first = await reader.read();
  assert.equal(first.value, ": keep-alive\n\n");
  sse.send({ type: "system" });
  assert.equal((await reader.read()).value, 'event: system\ndata: {"type":"system"}\n\n');
  sse.close();
  assert.equal((await reader.read()).done, true);
});

Deno.test("a streaming client that disconnects cancels its turn, which is saved", async () => {
  await using a = await app([{ stall: true, text: "partial answer" }, { text: "next" }]);
  const gone = new AbortController();
  const res = await a.call("POST", "/chat", {
    json: { prompt: "wait", session_id: "left" },
    headers: { accept: "application/json, text/event-stream" },
    signal: gone.signal,
  });
  assert.equal(res.status, 200);
  while (a.fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
  await res.body!.cancel();
  gone.abort();
  const next = await a.call("POST", "/chat", { json: { prompt: "again", session_id: "left" } });
  assert.equal((await next.json()).content, "next");
  assert.deepEqual((await a.store.read("left")).messages.map((m) => m.content), [
    "wait",
    "partial answer",
    "again",
    "next",
  ]);
});

Deno.test("abort of one session leaves another session's running turn alone", async () => {
  await using a = await app([{ text: "hi" }, { stall: true, text: "mine" }]);
  await (await a.call("POST", "/chat", { json: { prompt: "hi", session_id: "other" } })).json();
  const running = a.call("POST", "/chat", { json: { prompt: "wait", session_id: "mine" } });
  while (a.fake.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
  const other = await a.call("POST", "/sessions/other/abort");
  assert.deepEqual([other.status, await other.json()], [409, {
    error: "nothing runs in session other",
  }]);
  assert.equal((await a.call("POST", "/sessions/mine/abort")).status, 200);
  assert.equal((await (await running).json()).status, "cancelled");
});

Deno.test("text deltas are streamed only when the turn asks for them, and only in an event stream", async () => {
  await using a = await app([{ text: "a short answer", chunkSize: 3 }]);
  const json = await a.call("POST", "/chat", {
    json: { prompt: "hi", include_partial_messages: true },
  });
  assert.deepEqual([json.status, await json.json()], [400, {
    error:
      'include_partial_messages needs a streamed turn ("stream": true or Accept: text/event-stream)',
  }]);
  const bad = await a.call("POST", "/chat", {
    json: { prompt: "hi", stream: true, include_partial_messages: "yes" },
  });
  assert.deepEqual([bad.status, await bad.json()], [400, {
    error: "include_partial_messages must be true or false",
  }]);
  const streamed = await a.call("POST", "/chat", { json: { prompt: "hi", stream: true } });
  const text = await streamed.text();
  assert.deepEqual([...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]), [
    "system",
    "assistant",
    "result",
  ]);
  assert.equal(a.fake.requests.length, 1, "refused requests never reached the model");
});
