import assert from "node:assert/strict";
import { echoTool, harness, readStored } from "../_support/engine.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { priceOf } from "../../src/provider/prices.ts";

/** A runaway model: every round calls the echo tool again, reporting `usage` each time. */
function runaway(usage?: Record<string, unknown>): (body: unknown, index: number) => Reply {
  return (_body, index) => ({
    tool_calls: [{ name: "echo", arguments: { text: `round ${index + 1}` }, id: `call_${index}` }],
    ...(usage ? { usage } : {}),
  });
}

/** The echo tool, recording what it ran. */
function recordingEcho(ran: string[]) {
  const echo = echoTool();
  echo.run = (args) => {
    ran.push(String(args.text));
    return Promise.resolve("echoed");
  };
  return echo;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

Deno.test("limits.max_turns ends a runaway turn truncated after that many rounds, the last round's calls not run", async () => {
  const ran: string[] = [];
  await using h = await harness(runaway(USAGE), {
    tools: [recordingEcho(ran)],
    config: { "limits.max_turns": 3 },
  });
  const result = await h.engine.runTurn("loop", { session: h.store.create("t") });
  assert.equal(result.status, "truncated");
  assert.equal(result.reason, "max_turns");
  assert.equal(h.fake.requests.length, 3);
  assert.deepEqual(ran, ["round 1", "round 2"]);
  assert.deepEqual(result.tool_calls.map((r) => [r.id, r.decision]), [
    ["call_0", "allow"],
    ["call_1", "allow"],
    ["call_2", "deny"],
  ]);
  const error = result.errors.at(-1)!;
  assert.equal(error.code, "max_turns");
  assert.match(error.message, /max_turns limit: 3 model rounds \(limit 3\)/);
  // The history stays valid: the call of the last round is answered as not run.
  const stored = await readStored(h, "t");
  assert.deepEqual(
    stored.messages.at(-1).content,
    "Error: not run: the turn reached its max_turns limit",
  );
  assert.deepEqual(stored.messages.at(-1).tool_call_id, "call_2");
  assert.equal(stored.errors.at(-1).code, "max_turns");
});

Deno.test("limits from the engine's overrides (--max-turns) replace the config's", async () => {
  await using h = await harness(runaway(USAGE), {
    config: { "limits.max_turns": 10 },
    engine: { limits: { max_turns: 1 } },
  });
  const result = await h.engine.runTurn("loop", { session: h.store.create("t") });
  assert.deepEqual([result.status, result.reason, h.fake.requests.length], [
    "truncated",
    "max_turns",
    1,
  ]);
});

Deno.test("limits.max_tokens_total ends the turn at the round whose usage reaches it", async () => {
  const ran: string[] = [];
  await using h = await harness(runaway(USAGE), {
    tools: [recordingEcho(ran)],
    config: { "limits.max_tokens_total": 300 },
  });
  const result = await h.engine.runTurn("loop", { session: h.store.create("t") });
  // 110, 220, 330: the third round crosses 300.
  assert.deepEqual([result.status, result.reason], ["truncated", "max_tokens_total"]);
  assert.equal(h.fake.requests.length, 3);
  assert.deepEqual(ran, ["round 1", "round 2"]);
  assert.deepEqual(result.usage, { prompt_tokens: 300, completion_tokens: 30, total_tokens: 330 });
  assert.match(result.errors.at(-1)!.message, /330 tokens used \(limit 300\)/);
});

Deno.test("limits.max_cost ends the turn once the priced cost reaches it", async () => {
  await using h = await harness(runaway(USAGE), {
    config: {
      "limits.max_cost": 0.0025,
      prices: { "generic/fake-model": { input: 10, output: 20 } },
    },
  });
  const result = await h.engine.runTurn("loop", { session: h.store.create("t") });
  // Each round: 100 * 10 + 10 * 20 = 1200 per million = $0.0012; the third reaches $0.0036.
  assert.deepEqual([result.status, result.reason], ["truncated", "max_cost"]);
  assert.equal(h.fake.requests.length, 3);
  assert.ok(Math.abs(result.cost_usd! - 0.0036) < 1e-12, String(result.cost_usd));
  assert.match(
    result.errors.at(-1)!.message,
    /max_cost limit: \$0\.0036 spent \(limit \$0\.0025\)/,
  );
});

Deno.test("max_cost on a model without a price is not applied, says so, and cost stays null", async () => {
  const warnings: string[] = [];
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }], usage: USAGE },
    { text: "done", usage: USAGE },
  ], { config: { "limits.max_cost": 0.0001 } });
  const result = await h.engine.runTurn("go", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && warnings.push(e.message),
  });
  assert.deepEqual([result.status, result.cost_usd], ["ok", null]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /limits\.max_cost is not applied: svc has no price for generic\/fake-model/,
  );
});

Deno.test("a limit does not cut a turn the model ends by answering in that round", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }], usage: USAGE },
    { text: "the answer", usage: USAGE },
  ], { config: { "limits.max_turns": 2 } });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual([result.status, result.reason, result.content], [
    "ok",
    "answered",
    "the answer",
  ]);
});

Deno.test("usage sums prompt, completion, cached and reasoning tokens over the rounds, and costs them", async () => {
  const detailed = (prompt: number, cached: number, completion: number, reasoning: number) => ({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  });
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }], usage: detailed(1000, 0, 50, 20) },
    { text: "done", usage: detailed(1200, 1000, 30, 10) },
  ], {
    config: {
      prices: { "generic/fake-model": { input: 2, cached_input: 0.5, output: 8 } },
    },
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.usage, {
    prompt_tokens: 2200,
    completion_tokens: 80,
    total_tokens: 2280,
    cached_tokens: 1000,
    reasoning_tokens: 30,
  });
  // (1200 uncached * 2 + 1000 cached * 0.5 + 80 * 8) / 1e6
  assert.ok(Math.abs(result.cost_usd! - 0.00354) < 1e-12, String(result.cost_usd));
  // The session keeps each round's usage and cost on its assistant message.
  const stored = await readStored(h, "t");
  const assistants = stored.messages.filter((m: { role: string }) => m.role === "assistant");
  assert.deepEqual(
    assistants.map((m: { usage: { cached_tokens: number } }) => m.usage.cached_tokens),
    [
      0,
      1000,
    ],
  );
  assert.ok(Math.abs(assistants[1].cost_usd - 0.00114) < 1e-12, String(assistants[1].cost_usd));
});

Deno.test("Anthropic-style usage names are read as the OpenAI ones", async () => {
  await using h = await harness([{
    text: "hi",
    usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 },
  }]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.usage?.prompt_tokens, 100);
  assert.equal(result.usage?.completion_tokens, 5);
  assert.equal(result.usage?.cached_tokens, 90);
});

Deno.test("a round without usage is estimated from characters and marked estimated", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }] },
    { text: "x".repeat(400), usage: { prompt_tokens: 50, completion_tokens: 100 } },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  const usage = result.usage!;
  assert.equal(usage.estimated, true);
  assert.ok(usage.prompt_tokens! > 50, JSON.stringify(usage));
  assert.ok(usage.completion_tokens! > 100, JSON.stringify(usage));
  const stored = await readStored(h, "t");
  const [first, second] = stored.messages.filter((m: { role: string }) => m.role === "assistant");
  assert.equal(first.usage.estimated, true);
  assert.equal(second.usage.estimated, undefined);
  // A turn with no usage at all: every figure estimated (about 4 characters a token).
  await using h2 = await harness([{ text: "y".repeat(40) }]);
  const only = await h2.engine.runTurn("go", { session: h2.store.create("t") });
  assert.equal(only.usage?.completion_tokens, 10);
  assert.equal(only.usage?.estimated, true);
  assert.equal(only.cost_usd, null);
});

Deno.test("a bundled price applies to a dated model id; config prices win; an unknown model costs null", async () => {
  assert.deepEqual(priceOf({}, { provider: "anthropic", model: "claude-sonnet-4-20250514" }), {
    input: 3,
    cached_input: 0.3,
    output: 15,
  });
  assert.equal(priceOf({}, { provider: "generic", model: "qwen3:8b" }), null);
  const mine = { "anthropic/claude-sonnet-4": { input: 1, output: 2 } };
  assert.deepEqual(priceOf(mine, { provider: "anthropic", model: "claude-sonnet-4" }), {
    input: 1,
    output: 2,
  });
  await using h = await harness([{ text: "hi", usage: USAGE }], { provider: "anthropic" });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.cost_usd, null); // anthropic/fake-model has no price
});
