import assert from "node:assert/strict";
import { runEval, type TrialDone } from "../../src/eval/run.ts";
import { byModel, guesserAgent, perfectAgent, USAGE } from "../_support/eval_agents.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { evalHarness, LIMITS } from "./_harness.ts";

Deno.test("every trial is kept under its own outcome, none dropped, and aggregated with n, Wilson and pass^k", async () => {
  // Per fixture: the 1st trial solved, the 2nd guessed, the 3rd hit by a backend failure.
  const trialOf = new Map<string, number>();
  await using h = await evalHarness((body: Record<string, unknown>, index: number): Reply => {
    const messages = body.messages as Array<{ role: string; content: string }>;
    const prompt = messages.find((m) => m.role === "user")!.content;
    const fresh = !messages.some((m) => m.role === "tool");
    if (fresh) trialOf.set(prompt, (trialOf.get(prompt) ?? 0) + 1);
    const trial = trialOf.get(prompt)!;
    if (trial === 1) return perfectAgent(body, index);
    if (trial === 2) return guesserAgent(body, index);
    return { status: 500 };
  }, { config: { stream_retries: 0 } });
  const fixtures = [h.bundled.get("grep-symbol")!, h.bundled.get("list-directory")!];
  const seen: Array<[number, number, number, string]> = [];
  const results = await runEval(h.setup, {
    fixtures,
    targets: [h.target()],
    repeats: 3,
    limits: LIMITS,
  }, {
    onTrial: (d: TrialDone) => {
      seen.push([d.done, d.total, d.passes, d.run.record.outcome]);
      return `t/${d.fixture.id}/${d.run.record.trial}`;
    },
  });
  assert.deepEqual(seen, [
    [1, 6, 1, "pass"],
    [2, 6, 1, "fail"],
    [3, 6, 1, "engine_error"],
    [4, 6, 2, "pass"],
    [5, 6, 2, "fail"],
    [6, 6, 2, "engine_error"],
  ]);
  const [model] = results.models;
  assert.equal(model.results.length, 2);
  const grep = model.results[0];
  assert.deepEqual(
    {
      id: grep.id,
      model: grep.model,
      n: grep.n,
      passes: grep.passes,
      pass_rate: grep.pass_rate,
      passed: grep.passed,
      outcomes: grep.outcomes,
      pass_k: grep.pass_k,
      engine_errors: grep.engine_errors,
      transcripts: grep.trials.map((t) => t.transcript),
    },
    {
      id: "grep-symbol",
      model: "fake-model",
      n: 3,
      passes: 1,
      pass_rate: 1 / 3,
      passed: false,
      outcomes: { pass: 1, fail: 1, engine_error: 1, timeout: 0, turn_limit: 0 },
      pass_k: { "1": 1 / 3, "2": 0, "3": 0 },
      engine_errors: 1,
      transcripts: ["t/grep-symbol/1", "t/grep-symbol/2", "t/grep-symbol/3"],
    },
  );
  assert.equal(grep.wilson.low.toFixed(4), "0.0615");
  assert.equal(grep.wilson.high.toFixed(4), "0.7923");
  // The solved trial made two requests, the guess one, the failure none that reported usage.
  assert.deepEqual(grep.tokens, {
    prompt: 3 * USAGE.prompt_tokens,
    completion: 3 * USAGE.completion_tokens,
    total: 3 * USAGE.total_tokens,
    trials_reporting: 2,
  });
  assert.deepEqual(
    [model.summary.n, model.summary.passes, model.summary.fixtures, model.summary.fixtures_passed],
    [6, 2, 2, 0],
  );
  assert.deepEqual(results.comparisons, []);
});

Deno.test("two models run the same fixtures and repeats and are compared pairwise", async () => {
  await using h = await evalHarness(byModel({ good: perfectAgent, bad: guesserAgent }));
  const results = await runEval(h.setup, {
    fixtures: [...h.bundled.values()],
    targets: [h.target("good"), h.target("bad")],
    repeats: 2,
    limits: LIMITS,
  });
  assert.deepEqual(
    results.models.map((m) => [m.summary.model, m.summary.n, m.summary.passes]),
    [["good", 10, 10], ["bad", 10, 0]],
  );
  assert.equal(results.comparisons.length, 1);
  const [c] = results.comparisons;
  assert.deepEqual([c.a, c.b, c.wins, c.ties, c.losses, c.verdict], [
    "good",
    "bad",
    5,
    0,
    0,
    "good better",
  ]);
  assert.equal(c.paired_difference.estimate, 1);
});
