import assert from "node:assert/strict";
import { type Reply, startFakeProvider } from "../_support/fake_provider.ts";
import { createChatClient, type StreamEvent } from "../../src/provider/mod.ts";

const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };

async function collect(stream: AsyncGenerator<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Runs one streamed round against a fake scripted with `script`. */
async function run(
  script: Reply[],
  options: Partial<Parameters<typeof createChatClient>[0]> = {},
) {
  const fake = await startFakeProvider(script);
  try {
    const client = createChatClient({
      provider: "generic",
      baseUrl: fake.url,
      apiKey: "",
      retryDelay: 0.01,
      idleTimeout: 2,
      ...options,
    });
    const events = await collect(client.chat(request));
    return { events, requests: fake.requests };
  } finally {
    await fake.close();
  }
}

/** Merges consecutive token and thinking events so chunking does not matter. */
function merged(events: StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const e of events) {
    const prev = out.at(-1);
    if ((e.type === "token" || e.type === "thinking") && prev?.type === e.type) {
      out[out.length - 1] = { type: e.type, content: prev.content + e.content };
    } else out.push(e);
  }
  return out;
}

Deno.test("chat streams tokens, usage and the finish reason", async () => {
  const { events, requests } = await run([{
    text: "Hello, world",
    chunkSize: 3,
    finish: "length",
    usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
  }]);
  assert.equal(events.filter((e) => e.type === "token").length, 4);
  assert.deepEqual(merged(events), [
    { type: "token", content: "Hello, world" },
    {
      type: "done",
      reason: "length",
      usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    },
  ]);
  assert.deepEqual(requests[0].body, {
    model: "m",
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(requests[0].path, "/v1/chat/completions");
  assert.equal(requests[0].headers.authorization, undefined);
});

Deno.test("chat decodes a multi-byte character split across network writes", async () => {
  const { events } = await run([{ text: "naïve € 日本 🎉", splitUtf8: true, chunkSize: 2 }]);
  assert.deepEqual(merged(events), [
    { type: "token", content: "naïve € 日本 🎉" },
    { type: "done", reason: "stop" },
  ]);
});

Deno.test("chat reassembles fragmented tool calls by index", async () => {
  const { events } = await run([{
    text: "Reading.",
    tool_calls: [
      { name: "file_read", arguments: { path: "notes.txt", offset: 1 }, id: "call_a" },
      { name: "list_dir", arguments: { path: "." } },
    ],
  }]);
  assert.deepEqual(merged(events), [
    { type: "token", content: "Reading." },
    {
      type: "tool_calls",
      tool_calls: [
        {
          id: "call_a",
          type: "function",
          function: { name: "file_read", arguments: '{"path":"notes.txt","offset":1}' },
        },
        {
          id: "call_1",
          type: "function",
          function: { name: "list_dir", arguments: '{"path":"."}' },
        },
      ],
    },
    { type: "done", reason: "tool_calls" },
  ]);
});

Deno.test("chat passes invalid tool-call JSON through as the raw string", async () => {
  const { events } = await run([{ tool_calls: [{ name: "grep", arguments: '{"pattern": "a' }] }]);
  assert.deepEqual(events.slice(-2), [
    {
      type: "tool_calls",
      tool_calls: [{
        id: "call_0",
        type: "function",
        function: { name: "grep", arguments: '{"pattern": "a' },
      }],
    },
    { type: "done", reason: "tool_calls" },
  ]);
});

Deno.test("chat turns reasoning_content and reasoning deltas into thinking events", async () => {
  for (const field of ["reasoning_content", "reasoning"] as const) {
    const { events } = await run([{ thinking: "Let me think.", thinkingField: field, text: "42" }]);
    assert.deepEqual(merged(events), [
      { type: "thinking", content: "Let me think." },
      { type: "token", content: "42" },
      { type: "done", reason: "stop" },
    ]);
  }
});

Deno.test("chat retries HTTP 429 honouring Retry-After, then succeeds", async () => {
  const started = Date.now();
  const { events, requests } = await run([
    { status: 429, body: '{"error":{"message":"slow down"}}', headers: { "retry-after": "0.2" } },
    { text: "ok" },
  ]);
  assert.ok(Date.now() - started >= 200);
  assert.deepEqual(events, [
    { type: "status", message: "rate limited, retrying in 0.2s" },
    { type: "token", content: "ok" },
    { type: "done", reason: "stop" },
  ]);
  assert.equal(requests.length, 2);
});

Deno.test("retry waits without Retry-After are jittered between half and all of the backoff", async () => {
  const fake = await startFakeProvider(() => ({ status: 503 }));
  try {
    const waits = await Promise.all(Array.from({ length: 24 }, async () => {
      const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
      const stop = new AbortController();
      for await (const event of client.chat(request, stop.signal)) {
        if (event.type !== "status") continue;
        stop.abort(); // the wait is announced; nothing needs to sleep through it
        return Number(/retrying in ([\d.]+)s$/.exec(event.message)?.[1]);
      }
    }));
    // retryDelay defaults to 0.5 s: the first wait lies in [0.25, 0.5] and is not always the same.
    assert.deepEqual(waits.filter((w) => !(w! >= 0.2 && w! <= 0.5)), []);
    assert.ok(new Set(waits).size > 1, `every wait was ${waits[0]}s`);
  } finally {
    await fake.close();
  }
});

Deno.test("a Retry-After beyond the longest wait fails at once and says when the limit resets", async () => {
  const started = Date.now();
  const { events, requests } = await run([
    { status: 429, body: '{"error":{"message":"quota"}}', headers: { "retry-after": "5400" } },
    { text: "never asked" },
  ]);
  assert.ok(Date.now() - started < 2000);
  assert.equal(requests.length, 1);
  const message = events[0].type === "error" ? events[0].message : "";
  const at = /\(at (\S+)\)/.exec(message)?.[1] ?? "";
  // The reset time is the Retry-After from when the answer arrived (to the second).
  assert.ok(Math.abs(Date.parse(at) - (started + 5_400_000)) < 3000, at);
  assert.deepEqual(events, [
    {
      type: "error",
      code: "http_429",
      message: `generic returned HTTP 429: quota; the rate limit resets in 1h 30m (at ${at}), ` +
        "later than svc waits (30s); try again then",
    },
    { type: "done", reason: "error" },
  ]);
});

Deno.test("chat reports HTTP 500 as an error after the retry budget", async () => {
  const fail = { status: 500, body: '{"error":{"message":"boom"}}' };
  const { events, requests } = await run([fail, fail], { streamRetries: 1 });
  assert.deepEqual(events, [
    { type: "status", message: "generic returned HTTP 500, retrying in 0s" },
    { type: "error", code: "http_500", message: "generic returned HTTP 500: boom" },
    { type: "done", reason: "error" },
  ]);
  assert.equal(requests.length, 2);
});

Deno.test("chat reports a non-retryable HTTP error at once without the key", async () => {
  const { events, requests } = await run([
    { status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-secret-123"}}' },
  ], { apiKey: "sk-secret-123" });
  assert.deepEqual(events, [
    {
      type: "error",
      code: "http_401",
      message: "generic returned HTTP 401: Incorrect API key provided: ***",
    },
    { type: "done", reason: "error" },
  ]);
  assert.equal(requests[0].headers.authorization, "Bearer sk-secret-123");
});

Deno.test("chat retries a stream cut with no content and gives up after every attempt", async () => {
  const { events, requests } = await run([{ cut: true }, { cut: true }, { cut: true }, {
    text: "late",
  }]);
  assert.deepEqual(events, [
    { type: "status", message: "stream ended early, retrying (attempt 2 of 3)" },
    { type: "status", message: "stream ended early, retrying (attempt 3 of 3)" },
    { type: "error", code: "stream_ended", message: "Stream ended before a completion event" },
    { type: "done", reason: "error" },
  ]);
  assert.equal(requests.length, 3);
});

Deno.test("chat retries a cut stream and succeeds on a later attempt", async () => {
  const { events, requests } = await run([{ cut: true }, { text: "fine" }]);
  assert.deepEqual(events.at(-1), { type: "done", reason: "stop" });
  assert.equal(requests.length, 2);
});

Deno.test("chat keeps partial content of a cut stream and does not retry", async () => {
  const { events, requests } = await run([{ cut: true, text: "partial" }, { text: "never" }]);
  assert.deepEqual(merged(events), [
    { type: "token", content: "partial" },
    {
      type: "error",
      code: "stream_incomplete",
      message: "Stream ended before a completion event; partial output kept",
    },
    { type: "done", reason: "error" },
  ]);
  assert.equal(requests.length, 1);
});

Deno.test("chat fails a stalled stream after the idle timeout", async () => {
  const started = Date.now();
  const { events } = await run([{ stall: true, text: "half" }], { idleTimeout: 0.2 });
  assert.ok(Date.now() - started < 1500);
  assert.deepEqual(events, [
    { type: "token", content: "half" },
    {
      type: "error",
      code: "stall",
      message: "generic sent no output for 0.2s; the stream was abandoned",
    },
    { type: "done", reason: "error" },
  ]);
});

Deno.test("keep-alive comments and empty deltas keep a stream alive past the idle timeout, up to the ping timeout", async () => {
  const started = Date.now();
  // Cancelled after 5 s, so a stream kept alive by the noise ends as cancelled instead of hanging.
  const fake = await startFakeProvider([{ keepAlive: true, text: "half", everyMs: 40 }]);
  try {
    const client = createChatClient({
      provider: "generic",
      baseUrl: fake.url,
      apiKey: "",
      idleTimeout: 0.3,
      pingTimeout: 0.8,
    });
    const events = await collect(client.chat(request, AbortSignal.timeout(5000)));
    assert.deepEqual(events, [
      { type: "token", content: "half" },
      {
        type: "error",
        code: "stall",
        message: "generic sent only keep-alives for 0.8s; the stream was abandoned",
      },
      { type: "done", reason: "error" },
    ]);
    const took = Date.now() - started;
    assert.ok(took >= 750 && took < 4000, `${took} ms`);
  } finally {
    await fake.close();
  }
});

Deno.test("a provider that sends keep-alives for longer than the idle timeout and then answers is not cut off", async () => {
  // The idle timeout bounds gaps with no byte at all; keep-alives count as life (default ping
  // bound 600 s). Scaled down: 1 s of keep-alives against a 0.3 s idle timeout.
  const { events } = await run([
    { keepAlive: true, text: "thinking... ", everyMs: 40, forMs: 1000, then: "the answer" },
  ], { idleTimeout: 0.3 });
  assert.deepEqual(merged(events), [
    { type: "token", content: "thinking... the answer" },
    { type: "done", reason: "stop" },
  ]);
});

Deno.test("chat emits the complete tool calls of a broken stream before the error, without retrying", async () => {
  const expected: Record<string, { code: string; message: RegExp }> = {
    cut: { code: "stream_incomplete", message: /^Stream ended before a completion event; partial/ },
    stall: {
      code: "stall",
      message: /^generic sent no output for 0\.2s; the stream was abandoned$/,
    },
    error: { code: "provider_error", message: /^generic reported an error: overloaded$/ },
  };
  for (const breakWith of ["cut", "stall", "error"] as const) {
    const { events, requests } = await run([{
      text: "reading",
      tool_calls: [
        { name: "file_read", arguments: { path: "a.txt" }, id: "call_a" },
        { name: "file_read", arguments: '{"path": "b.t', id: "call_b" },
      ],
      breakWith,
    }, { text: "never" }], { idleTimeout: 0.2 });
    const error = events.find((e) => e.type === "error");
    assert.ok(error?.type === "error", `${breakWith}: ${JSON.stringify(events)}`);
    assert.equal(error.code, expected[breakWith].code, breakWith);
    assert.match(error.message, expected[breakWith].message, breakWith);
    assert.deepEqual(merged(events), [
      { type: "token", content: "reading" },
      {
        type: "tool_calls",
        tool_calls: [{
          id: "call_a",
          type: "function",
          function: { name: "file_read", arguments: '{"path":"a.txt"}' },
        }],
      },
      error,
      { type: "done", reason: "error" },
    ], breakWith);
    assert.equal(requests.length, 1, `${breakWith} was retried`);
  }
});

Deno.test("chat does not retry a cut stream that delivered only tool calls", async () => {
  const { events, requests } = await run([{
    tool_calls: [{ name: "file_read", arguments: { path: "a.txt" } }],
    breakWith: "cut",
  }, { text: "never" }]);
  assert.deepEqual(events, [
    {
      type: "tool_calls",
      tool_calls: [{
        id: "call_0",
        type: "function",
        function: { name: "file_read", arguments: '{"path":"a.txt"}' },
      }],
    },
    {
      type: "error",
      code: "stream_incomplete",
      message: "Stream ended before a completion event; partial output kept",
    },
    { type: "done", reason: "error" },
  ]);
  assert.equal(requests.length, 1);
});

Deno.test("chat reports a refused connection as a network error", async () => {
  const fake = await startFakeProvider([]);
  const url = fake.url;
  await fake.close();
  const client = createChatClient({ provider: "generic", baseUrl: url, apiKey: "" });
  const events = await collect(client.chat(request));
  assert.equal(events.length, 2);
  assert.equal(events[0].type === "error" && events[0].code, "network");
  assert.ok(
    events[0].type === "error" &&
      events[0].message.startsWith(`Could not reach generic at ${url}:`),
  );
  assert.deepEqual(events[1], { type: "done", reason: "error" });
});

Deno.test("chat ends with done cancelled when aborted mid-stream", async () => {
  const fake = await startFakeProvider([{ stall: true, text: "some" }]);
  try {
    const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
    const ctl = new AbortController();
    const events: StreamEvent[] = [];
    const started = Date.now();
    for await (const event of client.chat(request, ctl.signal)) {
      events.push(event);
      if (event.type === "token") setTimeout(() => ctl.abort(), 20);
    }
    assert.ok(Date.now() - started < 1000);
    assert.deepEqual(events, [{ type: "token", content: "some" }, {
      type: "done",
      reason: "cancelled",
    }]);
  } finally {
    await fake.close();
  }
});

Deno.test("chat ends with done cancelled when aborted during a retry sleep", async () => {
  const fake = await startFakeProvider([{ status: 429, headers: { "retry-after": "20" } }]);
  try {
    const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
    const ctl = new AbortController();
    const events: StreamEvent[] = [];
    const started = Date.now();
    for await (const event of client.chat(request, ctl.signal)) {
      events.push(event);
      if (event.type === "status") setTimeout(() => ctl.abort(), 20);
    }
    assert.ok(Date.now() - started < 1000);
    assert.deepEqual(events, [
      { type: "status", message: "rate limited, retrying in 20s" },
      { type: "done", reason: "cancelled" },
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("chat skips malformed chunks and reads a provider error inside the stream", async () => {
  const raw = 'data: {not json}\n\ndata: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n' +
    'data: {"error":{"message":"overloaded"}}\n\n';
  const { events } = await run([{ raw }]);
  assert.deepEqual(events, [
    { type: "token", content: "a" },
    { type: "error", code: "provider_error", message: "generic reported an error: overloaded" },
    { type: "done", reason: "error" },
  ]);
});

Deno.test("chat treats [DONE] without a finish reason as completion", async () => {
  const { events } = await run([{ text: "ok", finish: null, usage: { total_tokens: 1 } }]);
  assert.deepEqual(events, [
    { type: "token", content: "ok" },
    { type: "done", reason: "stop", usage: { total_tokens: 1 } },
  ]);
});

Deno.test("chat sends the bearer key and extra headers", async () => {
  const { requests } = await run([{ text: "ok" }], {
    apiKey: "sk-9",
    headers: { "x-title": "svc" },
  });
  const { authorization, accept, "content-type": type, "x-title": title } = requests[0].headers;
  assert.deepEqual([authorization, accept, type, title], [
    "Bearer sk-9",
    "text/event-stream",
    "application/json",
    "svc",
  ]);
});

const jsonAnswer = (body: unknown) => ({
  status: 200,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json; charset=utf-8" },
});

Deno.test("chat accepts a server that ignores stream: true and answers one JSON completion", async () => {
  const { events, requests } = await run([jsonAnswer({
    choices: [{
      message: {
        role: "assistant",
        content: "Checking.",
        reasoning_content: "hmm",
        tool_calls: [{
          id: "call_x",
          type: "function",
          function: { name: "file_read", arguments: '{"path":"a"}' },
        }],
      },
      finish_reason: "tool_calls",
    }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  })]);
  assert.equal(requests.length, 1);
  assert.deepEqual(events, [
    { type: "thinking", content: "hmm" },
    { type: "token", content: "Checking." },
    {
      type: "tool_calls",
      tool_calls: [{
        id: "call_x",
        type: "function",
        function: { name: "file_read", arguments: '{"path":"a"}' },
      }],
    },
    {
      type: "done",
      reason: "tool_calls",
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
  ]);
});

Deno.test("a JSON answer with an error object or no message fails like a stream would", async () => {
  const failed = await run([jsonAnswer({ error: { message: "model overloaded" } })]);
  assert.deepEqual(failed.events, [
    {
      type: "error",
      code: "provider_error",
      message: "generic reported an error: model overloaded",
    },
    { type: "done", reason: "error" },
  ]);
  const empty = await run([jsonAnswer({ object: "nothing" }), jsonAnswer({ choices: [] })], {
    streamRetries: 1,
  });
  assert.deepEqual(empty.events.at(-2), {
    type: "error",
    code: "stream_ended",
    message: "Stream ended before a completion event",
  });
  assert.equal(empty.requests.length, 2);
});
