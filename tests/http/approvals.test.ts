// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { echoTool } from "../_support/engine.ts";
import { app } from "./_app.ts";

const writes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    tool_calls: [{ name: "writer", arguments: { text: `w${i}` }, id: `call_${i}` }],
  }));

/** Parses SSE chunks as they arrive; resolves `next(type)` when such a line shows up. */
function lineReader(res: Response) {
  const lines: any[] = [];
  const parser = createParser({
    onEvent: (e: EventSourceMessage) => lines.push(JSON.parse(e.data)),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const done = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return lines;
      parser.feed(value);
    }
  })();
  const find = async (pred: (line: any) => boolean) => {
    while (!lines.some(pred)) await new Promise((r) => setTimeout(r, 5));
    return lines.find(pred);
  };
  return { lines, done, find };
}

const pending = async (a: { call: (m: string, p: string) => Promise<Response> }) =>
  (await (await a.call("GET", "/approvals")).json()).approvals;

Deno.test('"approvals": "client" parks an ask-gated call until POST /approvals/{id} answers', async () => {
  await using a = await app([...writes(3), { text: "done" }], {
    tools: [echoTool("writer", "edit")],
  });
  const res = await a.call("POST", "/chat", {
    json: { prompt: "write", session_id: "live", approvals: "client", stream: true },
  });
  const stream = lineReader(res);
  const isRequest = (n: number) => (l: any) =>
    l.subtype === "svc_event" && l.event.type === "approval_request" &&
    l.event.args.text === `w${n}`;
  const first = (await stream.find(isRequest(0))).event;
  assert.deepEqual([first.tool, first.session, typeof first.reason], ["writer", "live", "string"]);
  assert.match(first.id, /^apr_[0-9a-f]{32}$/);
  assert.deepEqual((await pending(a)).map((p: any) => p.id), [first.id]);
  const answer = (id: string, body: unknown) => a.call("POST", `/approvals/${id}`, { json: body });
  const wrong = await answer(first.id, { answer: "once", session_id: "someone-else" });
  assert.equal(wrong.status, 404);
  assert.equal((await answer(first.id, { answer: "maybe" })).status, 400);
  assert.equal((await answer(first.id, { answer: "once", extra: 1 })).status, 400);
  assert.equal((await answer(first.id, { answer: "once" })).status, 200);
  const twice = await answer(first.id, { answer: "deny" });
  assert.deepEqual([twice.status, await twice.json()], [409, {
    error: "approval already answered or expired",
  }]);
  const second = (await stream.find(isRequest(1))).event;
  assert.equal((await answer(second.id, { answer: "deny", message: "not that file" })).status, 200);
  const third = (await stream.find(isRequest(2))).event;
  assert.equal((await answer(third.id, { answer: "always" })).status, 200);
  const lines = await stream.done;
  const results = lines.filter((l) => l.type === "user").map((l) => l.message.content[0]);
  assert.match(results[0].content, /echo: \{"text":"w0"\}/);
  assert.deepEqual([results[1].content, results[1].is_error], ["not that file", true]);
  assert.match(results[2].content, /w2/);
  const result = lines.at(-1);
  assert.equal(result.result, "done");
  const stored = await a.store.read("live");
  assert.deepEqual(stored.permissions.map((p: any) => [p.outcome, p.by, p.scope ?? null]), [
    ["approved", "client", "once"],
    ["rejected", "client", null],
    ["approved", "client", "always"],
  ]);
  assert.deepEqual(await pending(a), []);
});

Deno.test("an unanswered client approval is denied after approval_timeout; none without the flag", async () => {
  await using a = await app([...writes(1), { text: "gave up" }, ...writes(1), { text: "x" }], {
    tools: [echoTool("writer", "edit")],
    config: { approval_timeout: 0.2 },
  });
  const res = await a.call("POST", "/chat", {
    json: { prompt: "write", session_id: "slow", approvals: "client" },
  });
  const body = await res.json();
  assert.equal(body.content, "gave up");
  assert.deepEqual([body.tool_calls[0].decision, body.tool_calls[0].ok], ["ask", false]);
  const fed = a.fake.requests[1].body.messages.at(-1).content;
  assert.match(fed, /within approval_timeout \(0.2 s\)/);
  const stored = await a.store.read("slow");
  assert.deepEqual(stored.permissions.map((p: any) => [p.outcome, p.by]), [["rejected", "client"]]);
  assert.deepEqual(await pending(a), []);
  const headless = await a.call("POST", "/chat", { json: { prompt: "write", session_id: "h" } });
  assert.equal((await headless.json()).tool_calls[0].ok, false);
  assert.deepEqual(await pending(a), []);
});

Deno.test("approval routes refuse strangers, bad ids, other methods and oversized answers", async () => {
  await using a = await app([]);
  const id = `apr_${"0".repeat(32)}`;
  const cases: Array<[Response, number]> = [
    [await a.call("GET", "/approvals", { auth: false }), 401],
    [await a.call("POST", `/approvals/${id}`, { json: { answer: "once" }, auth: false }), 401],
    [
      await a.call("POST", `/approvals/${id}`, {
        json: { answer: "once" },
        headers: { origin: "http://evil.example" },
      }),
      403,
    ],
    [await a.call("POST", `/approvals/${id}`, { json: { answer: "once" } }), 404],
    [await a.call("POST", `/approvals/${id}%2F..`, { json: { answer: "once" } }), 404],
    [await a.call("GET", `/approvals/${id}`), 405],
    [await a.call("POST", "/approvals", { json: {} }), 405],
    [
      await a.call("POST", `/approvals/${id}`, {
        body: JSON.stringify({ answer: "once" }),
        headers: { "content-type": "text/plain" },
      }),
      415,
    ],
    [
      await a.call("POST", `/approvals/${id}`, {
        json: { answer: "deny", message: "x".repeat(100_000) },
      }),
      413,
    ],
    [await a.call("POST", "/chat", { json: { prompt: "x", approvals: "yes" } }), 400],
  ];
  for (const [res, status] of cases) {
    assert.equal(res.status, status, await res.text());
  }
});

Deno.test("aborting a session whose call waits for approval cancels the turn and the approval", async () => {
  await using a = await app([...writes(1), { text: "never" }], {
    tools: [echoTool("writer", "edit")],
  });
  const res = a.call("POST", "/chat", {
    json: { prompt: "write", session_id: "parked", approvals: "client" },
  });
  while (!(await pending(a)).length) await new Promise((r) => setTimeout(r, 5));
  const [parked] = await pending(a);
  assert.equal((await a.call("POST", "/sessions/parked/abort")).status, 200);
  const body = await (await res).json();
  assert.equal(body.status, "cancelled");
  assert.deepEqual(await pending(a), []);
  const late = await a.call("POST", `/approvals/${parked.id}`, { json: { answer: "once" } });
  assert.equal(late.status, 409);
  assert.equal(a.fake.requests.length, 1);
});
