/**
 * What `svc jobs list` and `svc jobs status` show: each job's state with this user's approval
 * applied, its schedule, counts, last error and next run; whether the daemon runs (and since
 * when) and whether the worktree is trusted, with a sentence when approved jobs will not fire.
 */
import { isTrusted } from "../config/trust.ts";
import { type Approval, approvalOf, loadGrants } from "./approvals.ts";
import { type DaemonHolder, daemonHolder } from "../util/daemon_lock.ts";
import { readRegister } from "./register.ts";
import { describeSchedule } from "./schedule.ts";
import type { Job } from "./schema.ts";
import { authorized, type ShownState, shownState } from "./states.ts";
import { daemonLockPath } from "./task.ts";

/** The daemon running for `worktree`, or undefined. */
export function runningDaemon(worktree: string): Promise<DaemonHolder | undefined> {
  return daemonHolder(daemonLockPath(worktree));
}

/** One job as list and status show it. */
export interface JobRow {
  name: string;
  state: ShownState;
  /** This user's approval: `approved`, `armed` (one run), `none`, or `changed` (stale). */
  approval: Approval["kind"];
  require_approval: boolean;
  enabled: boolean;
  schedule: string;
  next_run_at: string | null;
  fired: { ok: number; failed: number };
  last_run_at: string | null;
  last_error: string | null;
}

/** The whole picture of a worktree's jobs. */
export interface JobsStatus {
  worktree: string;
  trusted: boolean;
  daemon: { running: boolean; pid?: number; started_at?: string; uptime_seconds?: number };
  /** Jobs that are approved, enabled and scheduled: they fire when a daemon runs here. */
  will_fire: number;
  /** Sentences about what keeps jobs from firing. */
  notes: string[];
  jobs: JobRow[];
}

/** A job's row. */
export function jobRow(job: Job, approval: Approval): JobRow {
  return {
    name: job.name,
    state: shownState(job, approval),
    approval: approval.kind,
    require_approval: job.require_approval,
    enabled: job.enabled,
    schedule: describeSchedule(job.schedule),
    next_run_at: job.enabled ? job.next_run_at : null,
    fired: job.fired,
    last_run_at: job.last_run_at,
    last_error: job.last_error,
  };
}

/** Every job's row, by name, with the approvals of this user. */
export async function jobRows(worktree: string, jobs?: readonly Job[]): Promise<JobRow[]> {
  const grants = await loadGrants(worktree);
  const list = jobs ?? (await readRegister(worktree)).jobs;
  return await Promise.all(
    list.map(async (job) =>
      jobRow(job, await approvalOf(job, { worktree, grant: grants.get(job.name) }))
    ),
  );
}

/** The status of a worktree's jobs at `now`. */
export async function jobsStatus(worktree: string, now = new Date()): Promise<JobsStatus> {
  const [{ jobs }, grants, holder, trusted] = await Promise.all([
    readRegister(worktree),
    loadGrants(worktree),
    runningDaemon(worktree),
    isTrusted(worktree),
  ]);
  const rows: JobRow[] = [];
  let willFire = 0;
  let proposed = 0;
  let waiting = 0;
  for (const job of jobs) {
    const approval = await approvalOf(job, { worktree, grant: grants.get(job.name) });
    const row = jobRow(job, approval);
    rows.push(row);
    if (job.enabled && job.next_run_at && authorized(job, approval)) willFire++;
    if (row.state === "proposed") proposed++;
    if (row.state === "waiting_approval") waiting++;
  }
  const notes: string[] = [];
  const jobsWord = (n: number) => `${n} approved job${n === 1 ? "" : "s"}`;
  if (!holder) {
    notes.push(
      `daemon not running: ${jobsWord(willFire)} will not fire (start it with svc jobs daemon)`,
    );
  }
  if (!trusted) {
    notes.push(
      `worktree not trusted: the daemon fires no job of ${worktree} until you run svc trust ` +
        worktree,
    );
  }
  if (proposed) {
    notes.push(
      `${proposed} job${proposed === 1 ? " is" : "s are"} proposed: svc jobs approve <name>`,
    );
  }
  if (waiting) {
    notes.push(
      `${waiting} job${
        waiting === 1 ? " is" : "s are"
      } WAITING for approve: svc jobs approve <name>`,
    );
  }
  const daemon = holder
    ? {
      running: true,
      pid: holder.pid,
      started_at: holder.started_at,
      uptime_seconds: holder.started_at
        ? Math.max(0, Math.round((now.getTime() - new Date(holder.started_at).getTime()) / 1000))
        : undefined,
    }
    : { running: false };
  return { worktree, trusted, daemon, will_fire: willFire, notes, jobs: rows };
}
