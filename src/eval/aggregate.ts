/**
 * Aggregates trials: per fixture and model (pass rate with its Wilson interval, pass^k, mean
 * trace scores, summed errors and tokens), per model over every fixture, and pairwise comparisons
 * of models (per-fixture wins, ties and losses; the paired difference; whether it is established).
 */
import { type Interval, overlaps, pairedDifference, passHatKAll, wilson } from "./stats.ts";
import { TOOL_ERROR_KINDS, type ToolErrorCounts } from "./observe.ts";
import { type Outcome, OUTCOMES, type TrialRecord } from "./trial.ts";

/** Summed token counts over the trials that reported them. */
export interface TokenTotals {
  prompt: number;
  completion: number;
  total: number;
  /** How many of the trials reported usage. */
  trials_reporting: number;
}

/** What every aggregate row holds, for one fixture or for all of a model's fixtures. */
export interface Aggregate {
  n: number;
  passes: number;
  /** passes / n, 0 to 1. */
  pass_rate: number;
  /** 95% Wilson score interval of the pass rate. */
  wilson: Interval;
  outcomes: Record<Outcome, number>;
  /** Means over the trials that have them; null when none has. */
  precision: number | null;
  recall: number | null;
  f1: number | null;
  in_order_rate: number | null;
  args_match_rate: number | null;
  redundant_calls: number;
  tool_errors: ToolErrorCounts;
  engine_errors: number;
  calls: number;
  /** null when no trial reported usage (see `tokens_note`). */
  tokens: TokenTotals | null;
  tokens_note?: string;
  /** Mean wall time of a trial's turn and mean streamed rounds. */
  wall_ms: number;
  rounds: number;
}

/** The result of one fixture for one model. */
export interface FixtureResult extends Aggregate {
  id: string;
  model: string;
  provider: string;
  /** pass^k for k = 1..n. */
  pass_k: Record<string, number>;
  /** Every trial passed. */
  passed: boolean;
  trials: Array<TrialRecord & { transcript?: string }>;
}

/** A model over every fixture. */
export interface ModelSummary extends Aggregate {
  model: string;
  provider: string;
  base_url: string;
  fixtures: number;
  fixtures_passed: number;
}

/** Two models compared on the same fixtures and repeats. */
export interface Comparison {
  a: string;
  b: string;
  /** Fixtures where a's pass rate is higher, equal, lower than b's. */
  wins: number;
  ties: number;
  losses: number;
  /** a's pass rate minus b's, paired by fixture and repeat, with Newcombe's 95% interval. */
  paired_difference: { estimate: number; low: number; high: number; n: number };
  /** Whether the two models' Wilson intervals overlap. */
  intervals_overlap: boolean;
  /** `a better`, `b better`, or `difference not established`. */
  verdict: string;
}

/** Aggregates trial records. */
export function aggregate(trials: readonly TrialRecord[]): Aggregate {
  const n = trials.length;
  const passes = trials.filter((t) => t.outcome === "pass").length;
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const t of trials) outcomes[t.outcome]++;
  const tool_errors = Object.fromEntries(TOOL_ERROR_KINDS.map((k) => [k, 0])) as ToolErrorCounts;
  for (const t of trials) for (const k of TOOL_ERROR_KINDS) tool_errors[k] += t.tool_errors[k];
  const reporting = trials.filter((t) => t.tokens !== null);
  const tokens: TokenTotals | null = reporting.length
    ? {
      prompt: sum(reporting.map((t) => t.tokens!.prompt ?? 0)),
      completion: sum(reporting.map((t) => t.tokens!.completion ?? 0)),
      total: sum(reporting.map((t) => t.tokens!.total ?? 0)),
      trials_reporting: reporting.length,
    }
    : null;
  return {
    n,
    passes,
    pass_rate: n ? passes / n : 0,
    wilson: wilson(passes, n),
    outcomes,
    precision: mean(trials.map((t) => t.precision)),
    recall: mean(trials.map((t) => t.recall)),
    f1: mean(trials.map((t) => t.f1)),
    in_order_rate: mean(trials.map((t) => (t.in_order === null ? null : Number(t.in_order)))),
    args_match_rate: mean(trials.map((t) => (t.args_match === null ? null : Number(t.args_match)))),
    redundant_calls: sum(trials.map((t) => t.redundant_calls)),
    tool_errors,
    engine_errors: sum(trials.map((t) => t.engine_errors.length)),
    calls: sum(trials.map((t) => t.calls)),
    tokens,
    ...(tokens ? {} : { tokens_note: "the provider reported no token usage" }),
    wall_ms: round1(mean(trials.map((t) => t.wall_ms)) ?? 0),
    rounds: round1(mean(trials.map((t) => t.rounds)) ?? 0),
  };
}

/** One fixture's result for one model. */
export function fixtureResult(
  id: string,
  { model, trials }: {
    model: { model: string; provider: string };
    trials: Array<TrialRecord & { transcript?: string }>;
  },
): FixtureResult {
  const agg = aggregate(trials);
  return {
    id,
    model: model.model,
    provider: model.provider,
    ...agg,
    pass_k: agg.n ? passHatKAll(agg.passes, agg.n) : {},
    passed: agg.n > 0 && agg.passes === agg.n,
    trials,
  };
}

/** A model's summary over its fixture results. */
export function modelSummary(
  model: { model: string; provider: string; base_url: string },
  results: readonly FixtureResult[],
): ModelSummary {
  return {
    ...model,
    ...aggregate(results.flatMap((r) => r.trials)),
    fixtures: results.length,
    fixtures_passed: results.filter((r) => r.passed).length,
  };
}

/**
 * Compares model a with model b on the fixtures both ran. A difference is established only when
 * the two Wilson intervals do not overlap and the paired interval excludes 0; otherwise the
 * report says `difference not established` instead of ranking them.
 */
export function compareModels(
  a: { label: string; results: readonly FixtureResult[]; summary: Aggregate },
  b: { label: string; results: readonly FixtureResult[]; summary: Aggregate },
): Comparison {
  let wins = 0, ties = 0, losses = 0;
  const counts = { both: 0, firstOnly: 0, secondOnly: 0, neither: 0 };
  const byId = new Map(b.results.map((r) => [r.id, r]));
  for (const ra of a.results) {
    const rb = byId.get(ra.id);
    if (!rb) continue;
    if (ra.pass_rate > rb.pass_rate) wins++;
    else if (ra.pass_rate < rb.pass_rate) losses++;
    else ties++;
    const pairs = Math.min(ra.trials.length, rb.trials.length);
    for (let i = 0; i < pairs; i++) {
      const pa = ra.trials[i].outcome === "pass";
      const pb = rb.trials[i].outcome === "pass";
      if (pa && pb) counts.both++;
      else if (pa) counts.firstOnly++;
      else if (pb) counts.secondOnly++;
      else counts.neither++;
    }
  }
  const diff = pairedDifference(counts);
  const intervalsOverlap = overlaps(a.summary.wilson, b.summary.wilson);
  const established = !intervalsOverlap && (diff.low > 0 || diff.high < 0);
  return {
    a: a.label,
    b: b.label,
    wins,
    ties,
    losses,
    paired_difference: diff,
    intervals_overlap: intervalsOverlap,
    verdict: !established
      ? "difference not established"
      : diff.estimate > 0
      ? `${a.label} better`
      : `${b.label} better`,
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function mean(values: Array<number | null>): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? sum(present) / present.length : null;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
