/**
 * Automatic compaction through the real engine against the scripted server: a backend with a
 * small window, refusing longer requests the way llama.cpp, Ollama, vLLM and OpenAI word it.
 */
import assert from "node:assert/strict";
import type { EngineEvent } from "../../src/engine/events.ts";
import { MemorySession } from "../../src/session/memory.ts";
import { harness, readStored } from "../_support/engine.ts";
import { overflowReply, windowedScript, WORDINGS } from "../_support/overflow_backend.ts";

const TURNS = 200;
const PROMPT = "question ".repeat(50);

for (const server of WORDINGS) {
  Deno.test(`${TURNS} turns of one session against a ${server} backend with a 1,500-token window never fail`, async () => {
    await using h = await harness(windowedScript(server, { window: 1500 }));
    const session = new MemorySession("long");
    const compactions: EngineEvent[] = [];
    for (let i = 0; i < TURNS; i++) {
      const result = await h.engine.runTurn(`${i}: ${PROMPT}`, {
        session,
        onEvent: (e) => e.type === "compaction" && compactions.push(e),
      });
      assert.equal(result.status, "ok", `turn ${i}: ${JSON.stringify(result.errors)}`);
      assert.ok(result.context.estimated_tokens <= 1500);
    }
    const records = session.data.messages.filter((m) => m.compact_from !== undefined);
    assert.ok(records.length >= 10, `${records.length} compactions`);
    assert.equal(records.length, compactions.length);
    // Append-only: every prompt is still in the log.
    assert.equal(session.data.messages.filter((m) => m.role === "user").length, TURNS);
    assert.ok(records.every((r) => r.compaction?.trigger === "auto"));
    // The first compaction answered the overflow; once the window is known (named by the error,
    // or bounded by the refused request) the threshold compacts before the backend refuses.
    assert.equal(records[0].compaction?.reason, "overflow");
    const refused = h.fake.requests.filter((r) => r.method === "POST").length -
      (TURNS + compactions.length);
    assert.ok(refused <= 2, `${refused} refused requests`);
  });
}

Deno.test("a request over compaction.threshold of context_window is compacted before it is sent, with PreCompact auto", async () => {
  const log = await Deno.makeTempFile();
  await using h = await harness(windowedScript("llama.cpp", { window: 100_000 }), {
    config: {
      context_window: { "fake-model": 2000 },
      "compaction.threshold": 0.5,
      hooks: {
        PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: `cat >> '${log}'` }] }],
      },
    },
  });
  const session = h.store.create("t");
  const events: EngineEvent[] = [];
  let turns = 0;
  while (!events.some((e) => e.type === "compaction")) {
    const result = await h.engine.runTurn(`${turns++}: ${PROMPT}`, {
      session,
      onEvent: (e) => events.push(e),
    });
    assert.equal(result.status, "ok");
    assert.equal(result.context.window, 2000);
    assert.ok(turns < 20);
  }
  const event = events.find((e) => e.type === "compaction")!;
  assert.equal(event.type === "compaction" && event.reason, "threshold");
  assert.ok(event.type === "compaction" && event.estimated_tokens! >= 1000);
  const stored = await readStored(h, "t");
  const record = stored.messages.find((m: { compact_from?: number }) => m.compact_from);
  assert.deepEqual(
    { ...record.compaction, estimated_tokens: 0 },
    { trigger: "auto", reason: "threshold", estimated_tokens: 0, window: 2000 },
  );
  assert.equal(record.content, "SUMMARY of the earlier turns");
  // The round after the compaction sent the summary and the kept turns only.
  const last = h.fake.requests.at(-1)!.body.messages;
  assert.ok(last.some((m: { content: string }) => m.content.includes("SUMMARY of the earlier")));
  assert.ok(last.length < 2 * turns);
  const hooked = JSON.parse(await Deno.readTextFile(log));
  assert.equal(hooked.hook_event_name, "PreCompact");
  assert.equal(hooked.trigger, "auto");
  await Deno.remove(log);
});

Deno.test("an overflow is compacted and retried once; a second overflow fails the turn cleanly", async () => {
  let refuse = false;
  await using h = await harness((body, index) => {
    if (body?.stream === false) return { text: "SUMMARY" };
    return refuse ? overflowReply("openai", 9000, 8192) : { text: `a${index}` };
  });
  const session = h.store.create("o");
  for (const p of ["q1", "q2", "q3"]) await h.engine.runTurn(p, { session });
  refuse = true;
  const before = h.fake.requests.length;
  const events: EngineEvent[] = [];
  const result = await h.engine.runTurn("q4", { session, onEvent: (e) => events.push(e) });
  assert.equal(result.status, "error");
  assert.equal(result.reason, "stream_error");
  assert.equal(result.errors.at(-1)?.code, "context_overflow");
  const sent = h.fake.requests.slice(before).map((r) =>
    r.body.stream === false ? "summary" : "round"
  );
  assert.deepEqual(sent, ["round", "summary", "round"]);
  assert.equal(events.filter((e) => e.type === "compaction").length, 1);
  assert.equal(
    events.filter((e) => e.type === "error").length,
    1,
    "the first refusal is not shown",
  );
  assert.equal(result.context.window, 8192);
});

Deno.test("an overflow with nothing to compact fails the turn with the backend's error", async () => {
  await using h = await harness([overflowReply("vllm", 9000, 4096)]);
  const session = new MemorySession("n");
  const events: EngineEvent[] = [];
  const result = await h.engine.runTurn("q", { session, onEvent: (e) => events.push(e) });
  assert.equal(result.status, "error");
  assert.equal(result.errors[0].code, "context_overflow");
  assert.equal(h.fake.requests.length, 1);
  assert.ok(events.some((e) => e.type === "error" && e.code === "context_overflow"));
});

Deno.test("the estimate is calibrated by the backend's prompt_tokens for the rest of the session", async () => {
  await using h = await harness(() => ({
    text: "ok",
    usage: { prompt_tokens: 1000, completion_tokens: 1 },
  }));
  const session = new MemorySession("c");
  const first = await h.engine.runTurn("hello", { session });
  const second = await h.engine.runTurn("hello", { session });
  const raw = first.context.estimated_tokens;
  assert.ok(raw < 1000, `${raw}`);
  // The second request is the first plus one exchange, scaled by 1000 / raw (at most 4).
  assert.ok(second.context.estimated_tokens >= Math.min(1000, raw * 4));
});

Deno.test("an automatic compaction's summary request counts in the turn's usage, cost and stored record", async () => {
  await using h = await harness(
    (body) =>
      body?.stream === false
        ? { text: "SUMMARY", usage: { prompt_tokens: 500, completion_tokens: 50 } }
        : { text: "ok", usage: { prompt_tokens: 100, completion_tokens: 10 } },
    {
      config: {
        context_window: 400,
        "compaction.threshold": 0.5,
        compact_keep: 2,
        prices: { "generic/fake-model": { input: 10, output: 20 } },
      },
    },
  );
  const session = h.store.create("u");
  const seen = { compaction: false };
  for (let i = 0; !seen.compaction && i < 20; i++) {
    const result = await h.engine.runTurn(`${i}: ${PROMPT}`, {
      session,
      onEvent: (e) => e.type === "compaction" && (seen.compaction = true),
    });
    assert.equal(result.status, "ok");
    const summaries = seen.compaction ? 1 : 0;
    // One round (100 + 10 tokens, $0.0012) plus the summary's (500 + 50, $0.006) if it ran.
    assert.equal(result.usage?.prompt_tokens, 100 + 500 * summaries, `turn ${i}`);
    assert.equal(result.usage?.completion_tokens, 10 + 50 * summaries);
    assert.ok(Math.abs(result.cost_usd! - (0.0012 + 0.006 * summaries)) < 1e-12);
  }
  assert.ok(seen.compaction);
  const stored = await readStored(h, "u");
  const record = stored.messages.find((m: { compact_from?: number }) => m.compact_from);
  assert.deepEqual(record.usage, { prompt_tokens: 500, completion_tokens: 50 });
});
