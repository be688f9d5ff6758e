/**
 * One run of a job: checked and started under the register's lock, attempts outside it (each a
 * fresh headless engine from the runtime, with a per-attempt timeout and exponential backoff
 * between attempts, all in the run's one session), then the run memory and the finished state.
 * The daemon and `svc jobs run` both run jobs through `runJob`.
 */
import type { EngineEvent } from "../runtime/mod.ts";
import { oneLine, readRunMemory, summarizeRun, writeRunMemory } from "../runtime/run_memory.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { jobSessionName } from "../runtime/sessions.ts";
import { acquireDaemonLock } from "../util/daemon_lock.ts";
import { type Clock, realClock } from "../util/time.ts";
import {
  type Approval,
  approvalOf,
  consumeOnce,
  grant as grantApproval,
  loadGrants,
} from "./approvals.ts";
import {
  type Attempted,
  type AttemptRunner,
  attempts,
  engineAttempt,
  type RunObserver,
} from "./attempts.ts";
import { readRegister, RegisterError, registerPath, updateJob } from "./register.ts";
import type { Job } from "./schema.ts";
import { authorized, finishRun, isDue, type RunOutcome, startRun } from "./states.ts";
import { memoryPath, runLockPath } from "./task.ts";

/** How a run is started. */
export interface RunOptions {
  worktree: string;
  name: string;
  /** `daemon`: only when due and authorized (an armed grant is used up); `manual`: always. */
  by: "daemon" | "manual";
  /** The loaded runtime the engines come from (the daemon keeps one). */
  runtime: () => Promise<Runtime>;
  /** One attempt, whatever `retries` says (`jobs run --no-retry`). */
  noRetry?: boolean;
  /** Aborting cancels the running attempt (saved as cancelled) and skips the rest. */
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** Each attempt's engine and turn result, as they come. */
  observer?: RunObserver;
  /** Progress lines (attempt started, retrying, memory written). */
  log?: (line: string) => void;
  /** What the run reads the time from and waits on (timeout, backoff); default the real one. */
  clock?: Clock;
  /** Runs one attempt; default a fresh headless engine from the runtime. */
  attempt?: AttemptRunner;
  /**
   * A manual run that keeps the approval gate (`POST /jobs/{name}/run`): refused unless the job
   * is authorized as the daemon needs it (approved, or armed for one run, which it uses up).
   */
  approvedOnly?: boolean;
  /** The run started (`executing`, its number and session recorded); attempts follow. */
  onStarted?: (started: { run: number; session: string }) => void;
}

/** How a run went. */
export interface RunReport extends RunOutcome {
  name: string;
  run: number;
  /** The job's state after the run. */
  state: Job["state"];
  attempts: number;
  /** The memory file written, or null. */
  memory: string | null;
  /** The last turn's stop reason when it was not a plain answer (`max_turns`, `max_cost`, ...). */
  reason?: string;
}

/** A run that did not start: why (not due, not approved, running elsewhere, no such job). */
export interface RunRefused {
  refused: string;
}

/**
 * Runs the job once. Returns a RunRefused when it may not start now; never throws for what a run
 * meets (a missing task file, a refused model, a failing provider): those fail the run.
 */
export async function runJob(options: RunOptions): Promise<RunReport | RunRefused> {
  const { worktree, name, by } = options;
  const taken = await acquireDaemonLock(runLockPath(worktree, name), `svc jobs ${by} run`);
  if (!taken.lock) {
    const holder = taken.heldBy
      ? ` (pid ${taken.heldBy.pid}, since ${taken.heldBy.started_at})`
      : "";
    return { refused: `job "${name}" is executing already${holder}` };
  }
  try {
    return await runLocked(options);
  } finally {
    taken.lock.release();
  }
}

async function runLocked(options: RunOptions): Promise<RunReport | RunRefused> {
  const { worktree, name } = options;
  const clock = options.clock ?? realClock;
  const log = options.log ?? (() => {});
  const stop = options.signal ?? new AbortController().signal;
  const preview = (await readRegister(worktree)).jobs.find((j) => j.name === name);
  if (!preview) return { refused: `no job named "${name}"` };
  const sessionName = preview.session ??
    await freeSessionName(worktree, name, new Date(clock.now()));
  const started = await start(options, clock, sessionName);
  if ("refused" in started) return started;
  const { job, run } = started;
  log(`job ${name}: run ${run} started (session ${sessionName})`);
  options.onStarted?.({ run, session: sessionName });
  const stopped = watchForStop(worktree, name, clock, log);
  let outcome: Attempted;
  try {
    outcome = await attempts({
      worktree,
      job,
      run,
      by: options.by,
      sessionName,
      runtime: options.runtime,
      noRetry: options.noRetry ?? false,
      clock,
      attempt: options.attempt ?? engineAttempt,
      onEvent: options.onEvent,
      observer: options.observer,
      log,
      stop: AbortSignal.any([stop, stopped.signal]),
    });
  } finally {
    stopped.close();
  }
  const memory = await remember(options, job, outcome, new Date(clock.now()), stop, log);
  let state: Job["state"] = outcome.verified ? "verified" : outcome.timedOut ? "timeout" : "failed";
  try {
    state = await updateJob({ worktree, name }, (current) => {
      finishRun(current, { outcome, now: new Date(clock.now()) });
      return current.state;
    });
  } catch (err) {
    // Removed while it ran: the run's outcome is in its session and memory only.
    if (!(err instanceof RegisterError)) throw err;
    log(`job ${name}: not in the register any more; its outcome was not recorded there`);
  }
  return { ...outcome, name, run, state, attempts: outcome.attempts, memory };
}

/**
 * Starts the run under the register's lock, checked again there (the register may have changed
 * since it was read): `executing`, its first attempt recorded, a one-run grant used up.
 */
async function start(
  options: RunOptions,
  clock: Clock,
  sessionName: string,
): Promise<{ job: Job; run: number } | RunRefused> {
  const { worktree, name, by } = options;
  const grants = await loadGrants(worktree);
  try {
    return await updateJob({ worktree, name }, async (job) => {
      const now = new Date(clock.now());
      const approval = await approvalOf(job, { worktree, grant: grants.get(name) });
      if (by === "daemon") {
        if (!isDue(job, { approval, now })) {
          return { refused: `job "${name}" is not due or not approved` };
        }
        if (approval.kind === "armed") {
          // Exactly one run per approve: the grant is used up before anything runs.
          if (!await consumeOnce(worktree, { name, hash: approval.grant.hash })) {
            return { refused: `job "${name}": its one-run approval was used already` };
          }
        }
      } else if (options.approvedOnly && !authorized(job, approval)) {
        return { refused: notApproved(job, approval) };
      } else if (!authorized(job, approval) && !job.require_approval) {
        // A manual run overrides the gate and approves a proposed job (SPEC's table).
        await grantApproval(worktree, job, { once: false, now });
      } else if (approval.kind === "armed") {
        const used = await consumeOnce(worktree, { name, hash: approval.grant.hash });
        if (!used && options.approvedOnly) {
          return { refused: `job "${name}": its one-run approval was used already` };
        }
      }
      const run = startRun(job, { now, by, session: sessionName });
      return { job: structuredClone(job), run };
    });
  } catch (err) {
    if (err instanceof RegisterError) return { refused: err.message };
    throw err;
  }
}

/** Why a gated manual run may not start: the job waits for this user's approval. */
function notApproved(job: Job, approval: Approval): string {
  const why = approval.kind === "changed"
    ? "its definition changed since it was approved"
    : job.require_approval && job.runs > 0
    ? "it waits for approval of its next run"
    : "it is not approved";
  return `job "${job.name}" may not run: ${why}; approve it first ` +
    `(svc jobs approve ${job.name}, or POST /jobs/${job.name}/approve)`;
}

/** `job_<YYYYMMDD>_<HHMMSS>_<name>`, `_2`, `_3` when a session of that name exists. */
async function freeSessionName(worktree: string, name: string, now: Date): Promise<string> {
  const base = jobSessionName(name, now);
  const dir = `${worktree}/.svc/sessions`;
  for (let n = 1;; n++) {
    const candidate = n === 1 ? base : `${base}_${n}`;
    try {
      await Deno.lstat(`${dir}/${candidate}.json`);
    } catch {
      return candidate;
    }
  }
}

/** Writes the run memory (the model's summary, or the fallback entry); returns its path or null. */
async function remember(
  options: RunOptions,
  job: Job,
  outcome: Attempted,
  now: Date,
  stop: AbortSignal,
  log: (line: string) => void,
): Promise<string | null> {
  const path = memoryPath(options.worktree, job.name);
  const memory = await readRunMemory(path);
  const verdict = outcome.verified ? "verified" : outcome.timedOut ? "timeout" : "failed";
  const detail = oneLine(outcome.verified ? outcome.output : outcome.error ?? outcome.output);
  const fallback = `Run ${now.toISOString()}: ${outcome.verified ? "verified" : "failed"}${
    detail ? `: ${detail}` : ""
  }`;
  const { text, summarized } = await summarizeRun(outcome.summary, {
    keeper: "a recurring job",
    header: `Job: ${job.name}\nRun: ${now.toISOString()}, ${verdict}`,
    memory,
    run: outcome.verified
      ? `Final answer:\n${outcome.output.slice(0, 8000)}`
      : `Failed: ${outcome.error ?? "no answer"}\n\n${outcome.output.slice(0, 8000)}`,
    fallback,
    signal: stop,
  });
  try {
    const runtime = await options.runtime().catch(() => null);
    await writeRunMemory(path, text, runtime?.trusted ? undefined : options.worktree);
    log(`job ${job.name}: memory ${summarized ? "summarized" : "written (fallback)"} to ${path}`);
    return path;
  } catch (err) {
    log(`job ${job.name}: could not write the memory ${path}: ${(err as Error).message}`);
    return null;
  }
}

/** How often a running job looks whether `svc jobs stop` (or disable, or remove) reached it (ms). */
const STOP_CHECK_MS = 1000;

/**
 * Aborts when the job is disabled (`svc jobs stop` or `disable`) or removed while it runs, from
 * this process or another: the register is looked at once a second (on the run's clock), and read
 * only when its file changed. The attempt in progress ends as cancelled and is saved.
 */
function watchForStop(
  worktree: string,
  name: string,
  clock: Clock,
  log: (line: string) => void,
): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const closed = new AbortController();
  const path = registerPath(worktree);
  const stamp = () => {
    try {
      const info = Deno.statSync(path);
      return `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
    } catch {
      return "-";
    }
  };
  const watch = async () => {
    let seen = stamp();
    while (await clock.sleep(STOP_CHECK_MS, closed.signal, "stop-check")) {
      const now = stamp();
      if (now === seen) continue;
      seen = now;
      try {
        const job = (await readRegister(worktree)).jobs.find((j) => j.name === name);
        if (!job || !job.enabled) {
          log(`job ${name}: ${job ? "disabled" : "removed"} while running: cancelling the attempt`);
          controller.abort();
          return;
        }
      } catch {
        // a register that does not read now is looked at again at the next change
      }
    }
  };
  watch();
  return {
    signal: controller.signal,
    close: () => closed.abort(),
  };
}
