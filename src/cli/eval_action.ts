import { resolve } from "../util/posix_path.ts";
import {
  buildReport,
  EvalCancelled,
  evalSetup,
  type EvalTarget,
  evalTargets,
  fixtureListing,
  type LoadedFixture,
  makeReportFolder,
  modelFolder,
  modelProvenance,
  provenance,
  renderFixtureList,
  renderTable,
  reportFolderProblem,
  runEval,
  selectFixtures,
  type TrialDone,
  worktreeFixtures,
  writeReport,
  writeTranscript,
} from "../eval/mod.ts";
import { Runtime } from "../runtime/runtime.ts";
import { seconds, wholeNumber } from "./flags.ts";
import { USAGE_EXIT, UsageError } from "./usage.ts";

/** Flags of `svc eval list`. */
export interface EvalListFlags {
  output: "table" | "json";
  path?: string;
}

/** Flags of `svc eval run`. */
export interface EvalRunFlags {
  fixture: string[];
  provider?: string;
  model?: string;
  baseUrl?: string;
  compare?: string;
  output: "table" | "json";
  repeats: string;
  maxRounds: string;
  timeout: string;
  report?: string;
  path?: string;
}

/** `svc eval list`: prints the merged fixtures; exit 1 when a fixture file is invalid. */
export async function listFixtures(flags: EvalListFlags): Promise<number> {
  try {
    const runtime = await Runtime.load({ path: flags.path });
    for (const warning of runtime.warnings) console.error(`warning: ${warning}`);
    const fixtures = await worktreeFixtures(runtime);
    if (flags.output === "json") console.log(JSON.stringify(fixtureListing(fixtures), null, 2));
    else console.log(renderFixtureList(fixtures));
    return 0;
  } catch (err) {
    return fail(err);
  }
}

/**
 * `svc eval run`: every selected fixture, `--repeats` times, for the model (or each model of
 * `--compare`). Exit 0 when every fixture passed every trial, 1 when any did not (or the run
 * could not start), 2 on usage errors, 130 after Ctrl-C.
 */
export async function runEvalCommand(flags: EvalRunFlags): Promise<number> {
  const checked = await checkRunFlags(flags);
  if ("problem" in checked) return usage(checked.problem);
  const { repeats, maxRounds, timeout, compare } = checked;
  let runtime: Runtime;
  let selected: LoadedFixture[];
  let targets: EvalTarget[];
  try {
    runtime = await Runtime.load({
      path: flags.path,
      provider: flags.provider,
      model: flags.model,
      baseUrl: flags.baseUrl,
      warn: (warning) => console.error(`warning: ${warning}`),
    });
    for (const warning of runtime.warnings) console.error(`warning: ${warning}`);
    const chosen = await selectFixtures(runtime, flags.fixture);
    if (typeof chosen === "string") return usage(chosen);
    selected = chosen;
    targets = await evalTargets(runtime, compare);
  } catch (err) {
    return fail(err);
  }
  const setup = evalSetup(runtime);
  const limits = { maxRounds, timeoutMs: timeout * 1000 };
  const fixtures = selected.map((f) => f.fixture);
  let dir: string;
  try {
    dir = await makeReportFolder(flags.report);
  } catch (err) {
    return fail(err);
  }
  const prov = await provenance(setup, {
    fixtures,
    models: targets.map((t) => modelProvenance(setup.config, t.connection)),
    repeats,
    limits,
  });
  const folders = targets.map((t, i) => modelFolder(i, t.connection.model));
  const progress = progressLine();
  const controller = new AbortController();
  const onSigint = () => {
    controller.abort();
    console.error("\nsvc eval: cancelling (the trial under way is dropped)");
  };
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    const results = await runEval(setup, { fixtures, targets, repeats, limits }, {
      signal: controller.signal,
      onTrial: async (done: TrialDone) => {
        const path = await writeTranscript(dir, { folder: folders[done.target], run: done.run });
        progress.update(done, targets[done.target].connection.model);
        return path;
      },
    });
    progress.end();
    const report = buildReport(results, { provenance: prov, dir });
    const path = await writeReport(dir, report);
    console.log(flags.output === "json" ? JSON.stringify(report, null, 2) : renderTable(report));
    console.error(`svc eval: report written to ${path}`);
    return report.passed ? 0 : 1;
  } catch (err) {
    progress.end();
    if (err instanceof EvalCancelled) {
      console.error(`svc eval: cancelled; transcripts so far are in ${dir}`);
      return 130;
    }
    return fail(err);
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
  }
}

/** The numbers and models of `svc eval run`'s flags, or what is wrong with them. */
async function checkRunFlags(flags: EvalRunFlags): Promise<
  { repeats: number; maxRounds: number; timeout: number; compare?: string[] } | { problem: string }
> {
  let repeats: number, maxRounds: number, timeout: number;
  try {
    repeats = wholeNumber(flags.repeats, { flag: "--repeats", min: 1, max: 1000 });
    maxRounds = wholeNumber(flags.maxRounds, { flag: "--max-rounds", min: 1, max: 64 });
    timeout = seconds(flags.timeout, { flag: "--timeout", max: 86_400 });
  } catch (err) {
    if (err instanceof UsageError) return { problem: err.message };
    throw err;
  }
  const compare = flags.compare?.split(",").map((m) => m.trim()).filter(Boolean);
  if (compare) {
    if (flags.model) {
      return {
        problem: "--model and --compare cannot be combined; list every model in --compare",
      };
    }
    if (compare.length < 2 || new Set(compare).size !== compare.length) {
      return { problem: "--compare takes two or more different models, comma-separated" };
    }
  }
  if (flags.report) {
    const problem = await reportFolderProblem(resolve(flags.report));
    if (problem) {
      return { problem: `--report ${flags.report} ${problem}; give a new or empty folder` };
    }
  }
  return { repeats, maxRounds, timeout, compare };
}

/**
 * The progress line on stderr: rewritten in place on a terminal, one line per trial elsewhere
 * (logs keep every line).
 */
function progressLine() {
  const tty = Deno.stderr.isTerminal();
  const encoder = new TextEncoder();
  let open = false;
  return {
    update(done: TrialDone, model: string) {
      const { record } = done.run;
      const text =
        `svc eval: trial ${done.done} of ${done.total}: ${done.fixture.id} #${record.trial} ` +
        `(${model}) ${record.outcome}; ${done.passes} of ${done.done} passed so far`;
      Deno.stderr.writeSync(encoder.encode(tty ? `\r\x1b[K${text}` : `${text}\n`));
      open = tty;
    },
    end() {
      if (open) Deno.stderr.writeSync(encoder.encode("\n"));
      open = false;
    },
  };
}

function usage(message: string): number {
  console.error(`svc eval: ${message}`);
  return USAGE_EXIT;
}

function fail(err: unknown): number {
  console.error(`svc eval: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
}
