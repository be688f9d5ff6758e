/**
 * `svc eval`: fixtures, isolated trials, the verifier, metrics, statistics and reports. A
 * front-end: it builds its engines through the runtime layer, one per trial.
 */
export { type Fixture, FixtureError, FixtureSchema, parseFixture } from "./fixture.ts";
export { type FixtureOrigin, type LoadedFixture, loadFixtures } from "./sources.ts";
export {
  EVAL_PERMISSIONS,
  EvalCancelled,
  evalConfig,
  type EvalSetup,
  type EvalTarget,
  type Outcome,
  OUTCOMES,
  runTrial,
  type TrialLimits,
  type TrialRecord,
  type TrialRun,
} from "./trial.ts";
export { type EvalPlan, type EvalResults, runEval, type TrialDone } from "./run.ts";
export {
  buildReport,
  type EvalReport,
  modelFolder,
  modelProvenance,
  provenance,
  REPORT_SCHEMA_VERSION,
  writeReport,
  writeTranscript,
} from "./report.ts";
export { renderFixtureList, renderTable } from "./table.ts";
export {
  evalSetup,
  evalTargets,
  fixtureListing,
  makeReportFolder,
  reportFolderProblem,
  selectFixtures,
  worktreeFixtures,
} from "./prepare.ts";
