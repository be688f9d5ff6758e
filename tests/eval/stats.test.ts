import assert from "node:assert/strict";
import { compareModels, fixtureResult } from "../../src/eval/aggregate.ts";
import { overlaps, pairedDifference, passHatK, passHatKAll, wilson } from "../../src/eval/stats.ts";
import type { Outcome, TrialRecord } from "../../src/eval/trial.ts";

const close = (actual: number, expected: number, digits = 4) =>
  assert.equal(actual.toFixed(digits), expected.toFixed(digits), `${actual} != ${expected}`);

Deno.test("wilson intervals match the published values", () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3,
  // and the textbook 5 of 10, 0 of 10, 10 of 10.
  const table: Array<[number, number, number, number]> = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [5, 10, 0.2366, 0.7634],
    [0, 10, 0, 0.2775],
    [10, 10, 0.7225, 1],
    [3, 3, 0.4385, 1],
    [15, 15, 0.7961, 1],
  ];
  for (const [x, n, low, high] of table) {
    const w = wilson(x, n);
    close(w.low, low);
    close(w.high, high);
  }
  assert.deepEqual(wilson(0, 0), { low: 0, high: 1 });
  assert.throws(() => wilson(4, 3), RangeError);
});

Deno.test("pass^k is C(passes, k) / C(n, k)", () => {
  const table: Array<[number, number, number, number]> = [
    [3, 3, 3, 1],
    [2, 3, 1, 2 / 3],
    [2, 3, 2, 1 / 3],
    [2, 3, 3, 0],
    [8, 10, 2, 28 / 45],
    [8, 10, 8, 1 / 45],
    [0, 5, 1, 0],
  ];
  for (const [passes, n, k, expected] of table) close(passHatK({ passes, n }, k), expected, 10);
  assert.deepEqual(passHatKAll(2, 3), { "1": 2 / 3, "2": 1 / 3, "3": 0 });
  assert.throws(() => passHatK({ passes: 1, n: 3 }, 4), RangeError);
});

Deno.test("the paired difference matches Newcombe's method 10 on published data", () => {
  // Cavo et al. (2012) in Fagerland, Lydersen and Laake, "Statistical Analysis of Contingency
  // Tables", chapter 8: 59 both, 6 only before, 16 only after, 80 neither.
  const d = pairedDifference({ both: 59, firstOnly: 6, secondOnly: 16, neither: 80 });
  close(d.estimate, -0.0621);
  close(d.low, -0.1186);
  close(d.high, -0.0046);
  assert.equal(d.n, 161);
  // Identical outcomes: no difference, and the interval is symmetric around 0.
  const same = pairedDifference({ both: 4, firstOnly: 0, secondOnly: 0, neither: 4 });
  assert.equal(same.estimate, 0);
  close(same.low, -same.high, 10);
  assert.deepEqual(pairedDifference({ both: 0, firstOnly: 0, secondOnly: 0, neither: 0 }), {
    estimate: 0,
    low: -1,
    high: 1,
    n: 0,
  });
});

Deno.test("overlapping intervals are detected, touching ones included", () => {
  assert.equal(overlaps({ low: 0, high: 0.5 }, { low: 0.5, high: 1 }), true);
  assert.equal(overlaps({ low: 0, high: 0.4 }, { low: 0.5, high: 1 }), false);
  assert.equal(overlaps({ low: 0.6, high: 0.9 }, { low: 0.1, high: 0.59 }), false);
});

function trials(outcomes: Outcome[]): TrialRecord[] {
  return outcomes.map((outcome, i) => ({
    trial: i + 1,
    outcome,
    failures: [],
    status: "ok",
    trace: [],
    calls: 0,
    rounds: 1,
    precision: null,
    recall: null,
    f1: null,
    in_order: null,
    args_match: null,
    redundant_calls: 0,
    tool_errors: { unknown_tool: 0, invalid_arguments: 0, denied: 0, failed: 0 },
    engine_errors: [],
    tokens: null,
    wall_ms: 1,
  }));
}

const model = (name: string) => ({ model: name, provider: "generic" });

function side(label: string, perFixture: Outcome[][]) {
  const results = perFixture.map((o, i) =>
    fixtureResult(`f${i}`, { model: model(label), trials: trials(o) })
  );
  const all = results.flatMap((r) => r.trials);
  const passes = all.filter((t) => t.outcome === "pass").length;
  return { label, results, summary: { wilson: wilson(passes, all.length) } as never };
}

Deno.test("comparing models counts per-fixture wins, ties and losses and refuses to rank when the intervals overlap", () => {
  const a = side("a", [["pass", "pass", "pass"], ["pass", "fail", "pass"], [
    "fail",
    "fail",
    "fail",
  ]]);
  const b = side("b", [["pass", "fail", "fail"], ["pass", "fail", "pass"], [
    "pass",
    "fail",
    "fail",
  ]]);
  const c = compareModels(a, b);
  assert.deepEqual({ ...c, paired_difference: undefined }, {
    a: "a",
    b: "b",
    wins: 1,
    ties: 1,
    losses: 1,
    paired_difference: undefined,
    intervals_overlap: true,
    verdict: "difference not established",
  });
  close(c.paired_difference.estimate, 1 / 9, 10);
  assert.equal(c.paired_difference.n, 9);
});

Deno.test("a clear difference is ranked: disjoint intervals and a paired interval above 0", () => {
  const pass5: Outcome[] = ["pass", "pass", "pass", "pass", "pass"];
  const fail5: Outcome[] = ["fail", "fail", "fail", "fail", "fail"];
  const a = side("good", [pass5, pass5, pass5, pass5]);
  const b = side("bad", [fail5, fail5, fail5, fail5]);
  const c = compareModels(a, b);
  assert.equal(c.verdict, "good better");
  assert.equal(c.intervals_overlap, false);
  assert.equal(c.wins, 4);
  assert.ok(c.paired_difference.low > 0);
  assert.equal(compareModels(b, a).verdict, "good better");
});
