/**
 * The job state machine (SPEC "Job" states table) as pure functions of a job, its approval and a
 * clock: what a job shows, whether the daemon may fire it, and each transition. The register and
 * the runner call these; nothing here reads a file or the real time.
 *
 * svc's meaning of the two states SPEC leaves open: `will_run` is an approved, enabled job with a
 * next run scheduled (set by approve, `--approval auto` and enable); `timeout` is the state after a
 * run whose last attempt hit the per-attempt timeout (counted as failed).
 */
import type { Approval } from "./approvals.ts";
import { nextRunAfter } from "./schedule.ts";
import {
  type Attempt,
  ATTEMPT_TEXT_MAX,
  HISTORY_RUNS,
  type Job,
  type JobState,
  LAST_OUTPUT_MAX,
} from "./schema.ts";

/** What a job shows: its state with the approval applied, and `disabled`. */
export type ShownState = JobState | "disabled";

/** How a run ended, as the runner reports it. */
export interface RunOutcome {
  verified: boolean;
  /** The last attempt hit the per-attempt timeout. */
  timedOut: boolean;
  output: string;
  error: string | null;
  session: string | null;
}

/** When an attempt starts, what started it, and the session it runs in. */
export interface AttemptStart {
  now: Date;
  by: Attempt["by"];
  session: string | null;
}

function date(text: string | null | undefined): Date | null {
  if (!text) return null;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Whether the approval lets the scheduler run this job (the daemon never approves). */
export function authorized(job: Job, approval: Approval): boolean {
  if (approval.kind === "armed") return true;
  return approval.kind === "approved" && !job.require_approval;
}

/**
 * The state a job shows: `disabled` when disabled; a job without a grant of this user for its
 * current definition shows `proposed` (or `waiting_approval` while it waits), whatever the
 * register says; otherwise the register's state.
 */
export function shownState(job: Job, approval: Approval): ShownState {
  if (!job.enabled) return "disabled";
  if (job.state === "executing") return "executing";
  if (job.state === "waiting_approval" && approval.kind !== "armed") return "waiting_approval";
  if (!authorized(job, approval)) {
    return job.require_approval && job.runs > 0 ? "waiting_approval" : "proposed";
  }
  return job.state === "proposed" || job.state === "waiting_approval" ? "approved" : job.state;
}

/** Whether the daemon fires the job at `now`: enabled, authorized, due, not running already. */
export function isDue(job: Job, { approval, now }: { approval: Approval; now: Date }): boolean {
  const next = date(job.next_run_at);
  return job.enabled && job.state !== "executing" && authorized(job, approval) && next !== null &&
    next.getTime() <= now.getTime();
}

/** The next run strictly after `now` (an interval keeps the grid of the current next_run_at). */
export function nextRun(job: Job, now: Date): string | null {
  if (!job.schedule) return null;
  return nextRunAfter(job.schedule, now, date(job.next_run_at))?.toISOString() ?? null;
}

/**
 * The next run a job's schedule really gives when its `next_run_at` lies more than one period
 * after `now` (written under a clock that ran ahead, or by hand): an interval keeps its grid and
 * moves to its first slot after now, a cron schedule to its next time after now. Null when the
 * next run is within its schedule (or the job has no recurring schedule).
 */
export function beyondSchedule(job: Job, now: Date): string | null {
  const next = date(job.next_run_at);
  if (!job.enabled || !next || !job.schedule || "at" in job.schedule) return null;
  if ("every" in job.schedule) {
    const step = job.schedule.every * 1000;
    const ahead = next.getTime() - now.getTime();
    if (ahead <= step) return null;
    const slot = next.getTime() - step * Math.floor(ahead / step);
    return new Date(slot > now.getTime() ? slot : slot + step).toISOString();
  }
  // The cron time after now is at most one period away; a later next_run_at skips windows.
  const due = nextRunAfter(job.schedule, now);
  return due && next.getTime() > due.getTime() ? due.toISOString() : null;
}

/**
 * `approve` (or `--approval auto`, or a manual run of a proposed job): runnable again, its next
 * run strictly after now.
 */
export function approveJob(job: Job, now: Date): void {
  // A next run that passed while the job waited would fire at once: the next one after now.
  const next = date(job.next_run_at);
  if (job.enabled && (!next || next.getTime() <= now.getTime())) {
    job.next_run_at = nextRun(job, now);
  }
  if (job.state !== "executing") {
    job.state = job.enabled && job.next_run_at ? "will_run" : "approved";
  }
}

/** `reject`: the grant is cleared (by the caller); a waiting job keeps waiting, others are proposed. */
export function rejectJob(job: Job): void {
  if (job.state !== "executing" && job.state !== "waiting_approval") job.state = "proposed";
}

/** `disable` or `stop`: nothing fires until `enable`. */
export function disableJob(job: Job): void {
  job.enabled = false;
  job.next_run_at = null;
}

/** `enable`: re-armed with the next run strictly after now. */
export function enableJob(job: Job, now: Date): void {
  job.enabled = true;
  job.next_run_at = null;
  job.next_run_at = nextRun(job, now);
  if (job.state === "approved" && job.next_run_at) job.state = "will_run";
}

/** A run starts: `executing`, numbered, its first attempt recorded. Returns the run number. */
export function startRun(job: Job, { now, by, session }: AttemptStart): number {
  job.state = "executing";
  job.runs += 1;
  job.last_run_at = now.toISOString();
  startAttempt(job, { run: job.runs, attempt: 1, now, by, session });
  return job.runs;
}

/** An attempt of run `run` starts (attempts share the run's session). */
export function startAttempt(
  job: Job,
  { run, attempt, now, by, session }: AttemptStart & { run: number; attempt: number },
): void {
  job.history.push({
    run,
    attempt,
    started_at: now.toISOString(),
    ended_at: null,
    status: null,
    session,
    by,
  });
}

/** An attempt ends: its record gets the end time, status and a little of its output or error. */
export function endAttempt(
  job: Job,
  { run, attempt, now, ended }: {
    run: number;
    attempt: number;
    now: Date;
    ended: {
      status: string;
      session: string | null;
      output?: string;
      error?: string;
      reason?: string;
    };
  },
): void {
  const record = job.history.find((a) => a.run === run && a.attempt === attempt);
  if (!record) return;
  record.ended_at = now.toISOString();
  record.status = ended.status;
  record.session = ended.session ?? record.session;
  if (ended.output) record.output = cut(ended.output, ATTEMPT_TEXT_MAX);
  if (ended.error) record.error = cut(ended.error, ATTEMPT_TEXT_MAX);
  if (ended.reason) record.reason = ended.reason;
}

/**
 * A run ends: verified, failed or timeout; fired counts, last output and error; next_run_at
 * recomputed strictly after now; a one-shot schedule disables itself; with require_approval the
 * job parks in waiting_approval; the history keeps the last HISTORY_RUNS runs.
 */
export function finishRun(job: Job, { outcome, now }: { outcome: RunOutcome; now: Date }): void {
  job.state = outcome.verified ? "verified" : outcome.timedOut ? "timeout" : "failed";
  if (outcome.verified) job.fired.ok += 1;
  else job.fired.failed += 1;
  job.last_error = outcome.verified ? null : outcome.error ?? "failed";
  job.last_output = cut(outcome.output, LAST_OUTPUT_MAX);
  job.last_session = outcome.session;
  if (job.schedule && "at" in job.schedule) {
    job.enabled = false;
    job.next_run_at = null;
  } else if (job.enabled) job.next_run_at = nextRun(job, now);
  if (job.require_approval) job.state = "waiting_approval";
  trimHistory(job);
}

/** Keeps the attempt records of the last HISTORY_RUNS runs. */
export function trimHistory(job: Job): void {
  const oldest = job.runs - HISTORY_RUNS + 1;
  if (job.history.some((a) => a.run < oldest)) {
    job.history = job.history.filter((a) => a.run >= oldest);
  }
}

/**
 * Brings a job in line when a daemon starts or wakes: a run left `executing` by a process that
 * ended (`running` false) is failed as interrupted; a job whose grant no longer matches goes back
 * to proposed; a next run more than one period from now moves back onto the schedule
 * (beyondSchedule); with `startup`, windows that passed while no daemon ran are skipped
 * (next_run_at recomputed strictly after now) and a one-shot time that passed disables the job.
 * Returns whether it changed anything.
 */
export function reconcile(
  job: Job,
  options: { approval: Approval; now: Date; running: boolean; startup: boolean; graceMs: number },
): boolean {
  const { approval, now } = options;
  const before = JSON.stringify(job);
  if (job.state === "executing" && !options.running) {
    for (const a of job.history) {
      if (a.ended_at === null) {
        a.ended_at = now.toISOString();
        a.status = "cancelled";
        a.error = "interrupted: the process running it ended";
      }
    }
    finishRun(job, {
      outcome: {
        verified: false,
        timedOut: false,
        output: "",
        error: "interrupted: the process running it ended before the run finished",
        session: job.last_session,
      },
      now,
    });
    // finishRun moved next_run_at; keep a one-shot's own result.
  }
  if (
    !authorized(job, approval) && approval.kind !== "armed" &&
    !["proposed", "waiting_approval", "executing"].includes(job.state)
  ) {
    job.state = job.require_approval && job.runs > 0 ? "waiting_approval" : "proposed";
  }
  if (job.state !== "executing") {
    const onSchedule = beyondSchedule(job, now);
    if (onSchedule) job.next_run_at = onSchedule;
  }
  const next = date(job.next_run_at);
  if (options.startup && job.enabled && next && next.getTime() < now.getTime() - options.graceMs) {
    if (job.schedule && "at" in job.schedule) {
      job.enabled = false;
      job.next_run_at = null;
      job.last_error = `missed: no daemon was running at ${job.schedule.at}; the one-shot ` +
        "run was not replayed";
    } else job.next_run_at = nextRun(job, now);
  }
  return JSON.stringify(job) !== before;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
