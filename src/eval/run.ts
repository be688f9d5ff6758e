/**
 * An eval run: every model runs every fixture `repeats` times, one trial after another, and the
 * trials are aggregated per fixture, per model, and compared pairwise between models.
 */
import {
  compareModels,
  type Comparison,
  type FixtureResult,
  fixtureResult,
  type ModelSummary,
  modelSummary,
} from "./aggregate.ts";
import type { Fixture } from "./fixture.ts";
import {
  type EvalSetup,
  type EvalTarget,
  runTrial,
  type TrialLimits,
  type TrialRecord,
  type TrialRun,
} from "./trial.ts";

/** What a run does. */
export interface EvalPlan {
  fixtures: readonly Fixture[];
  targets: readonly EvalTarget[];
  /** Trials per fixture and model. */
  repeats: number;
  limits: TrialLimits;
}

/** A finished trial, as progress reporting sees it. */
export interface TrialDone {
  /** Index of the target in the plan. */
  target: number;
  fixture: Fixture;
  run: TrialRun;
  /** Trials finished so far, of `total`, and how many of them passed. */
  done: number;
  total: number;
  passes: number;
}

/** The results of a run. */
export interface EvalResults {
  models: Array<{ summary: ModelSummary; results: FixtureResult[] }>;
  comparisons: Comparison[];
}

/**
 * Runs the plan. `onTrial` sees each trial when it ends and may return where its transcript was
 * written (kept in the trial's record). Throws EvalCancelled when `signal` aborts.
 */
export async function runEval(
  setup: EvalSetup,
  plan: EvalPlan,
  options: {
    signal?: AbortSignal;
    onTrial?(done: TrialDone): Promise<string | undefined> | string | undefined;
  } = {},
): Promise<EvalResults> {
  const total = plan.targets.length * plan.fixtures.length * plan.repeats;
  let done = 0;
  let passes = 0;
  const models: EvalResults["models"] = [];
  for (const [index, target] of plan.targets.entries()) {
    const { connection } = target;
    const results: FixtureResult[] = [];
    for (const fixture of plan.fixtures) {
      const trials: Array<TrialRecord & { transcript?: string }> = [];
      for (let trial = 1; trial <= plan.repeats; trial++) {
        const run = await runTrial(setup, {
          target,
          fixture,
          trial,
          limits: plan.limits,
          signal: options.signal,
        });
        done++;
        if (run.record.outcome === "pass") passes++;
        const transcript = await options.onTrial?.({
          target: index,
          fixture,
          run,
          done,
          total,
          passes,
        });
        trials.push(transcript ? { ...run.record, transcript } : run.record);
      }
      results.push(fixtureResult(fixture.id, { model: connection, trials }));
    }
    const summary = modelSummary(
      { model: connection.model, provider: connection.provider, base_url: connection.baseUrl },
      results,
    );
    models.push({ summary, results });
  }
  // Two targets may share a bare model id (one model from two providers): name them by both.
  const label = (s: ModelSummary) =>
    models.filter((m) => m.summary.model === s.model).length > 1
      ? `${s.provider}/${s.model}`
      : s.model;
  const side = (m: EvalResults["models"][number]) => ({
    label: label(m.summary),
    results: m.results,
    summary: m.summary,
  });
  const comparisons: Comparison[] = [];
  for (let i = 0; i < models.length; i++) {
    for (let j = i + 1; j < models.length; j++) {
      comparisons.push(compareModels(side(models[i]), side(models[j])));
    }
  }
  return { models, comparisons };
}
