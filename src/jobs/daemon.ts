/**
 * The jobs daemon: one per worktree (a daemon lock that names its holder), it sleeps until the
 * earliest due job or one tick, whichever comes first, re-reads the register on every wake (so
 * CLI edits apply), and fires due jobs one at a time in name order. It never approves anything,
 * fires nothing in an untrusted worktree, and never replays windows that passed while no daemon
 * ran. Stopping it (its signal) cancels the running attempt, which is saved as cancelled.
 */
import { isTrusted, trustedPath } from "../config/trust.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { acquireDaemonLock, daemonHolder } from "../util/daemon_lock.ts";
import { type Clock, realClock } from "../util/time.ts";
import { approvalOf, approvalsPath, type Grant, loadGrants } from "./approvals.ts";
import type { AttemptRunner } from "./attempts.ts";
import { readRegister, RegisterError, registerPath, updateRegister } from "./register.ts";
import { runJob } from "./runner.ts";
import type { Job } from "./schema.ts";
import { authorized, beyondSchedule, isDue, reconcile } from "./states.ts";
import { daemonLockPath, runLockPath } from "./task.ts";

/** Default tick: the longest the daemon sleeps between looks at the register (seconds). */
export const DEFAULT_TICK_SECONDS = 15;
/** How long the daemon waits before trying again a due job it could not start (ms). */
const RETRY_REFUSED_MS = 1000;

export interface DaemonOptions {
  worktree: string;
  tickSeconds: number;
  /** Aborting stops the daemon: the running attempt is cancelled and saved, then it returns. */
  signal: AbortSignal;
  /** Loads the runtime the engines come from (once, again only when trust changes). */
  loadRuntime: () => Promise<Runtime>;
  log: (line: string) => void;
  /** What the daemon and its runs read the time from and sleep on; default the real one. */
  clock?: Clock;
  /** Runs one attempt of a job; default a fresh headless engine from the runtime. */
  attempt?: AttemptRunner;
}

/**
 * Runs the daemon until `signal` aborts. Resolves to a refusal when another daemon holds the
 * worktree's lock, else to the number of runs it fired.
 */
export async function runDaemon(
  options: DaemonOptions,
): Promise<{ refused: string } | { fired: number }> {
  const { worktree, signal, log } = options;
  const clock = options.clock ?? realClock;
  const taken = await acquireDaemonLock(daemonLockPath(worktree), "svc jobs daemon");
  if (!taken.lock) {
    const h = taken.heldBy;
    return {
      refused: `a jobs daemon already runs for ${worktree}` +
        (h ? ` (pid ${h.pid}, started ${h.started_at})` : "") + "; stop it first",
    };
  }
  const runtime = runtimeCache(options.loadRuntime);
  const loop: Loop = { fired: 0, startup: true, untrustedSaid: false, quiet: null, broken: null };
  try {
    log(`started for ${worktree} (pid ${Deno.pid}, tick ${options.tickSeconds} s)`);
    while (!signal.aborted) {
      const wait = await wake(options, clock, runtime, loop);
      if (signal.aborted) break;
      await clock.sleep(wait, signal, "daemon");
    }
  } finally {
    await runtime.close();
    taken.lock.release();
    log("stopped");
  }
  return { fired: loop.fired };
}

/** What the daemon's loop carries from one wake to the next. */
interface Loop {
  fired: number;
  startup: boolean;
  untrustedSaid: boolean;
  /**
   * An idle wake whose files (register, grants, trust list) are as the last full look left them,
   * with no job executing or past its next run, has nothing to do: it only sleeps again, so an
   * idle daemon costs a few stat calls per tick.
   */
  quiet: { files: string; since: number; until: number } | null;
  /**
   * The register did not read (garbage, an invalid job) at the files' stat data `files`: the
   * daemon keeps running, said so once, fires nothing, and looks again when the files change.
   */
  broken: { files: string; message: string } | null;
}

/** The runtime, loaded on first use and kept (loaded again after a failed load or a close). */
interface RuntimeCache {
  get: () => Promise<Runtime>;
  close: () => Promise<void>;
}

function runtimeCache(load: () => Promise<Runtime>): RuntimeCache {
  let runtime: Promise<Runtime> | null = null;
  return {
    get: () => {
      runtime ??= load();
      runtime.catch(() => runtime = null);
      return runtime;
    },
    close: async () => {
      const current = runtime;
      runtime = null;
      if (current) (await current.catch(() => null))?.plugins.close();
    },
  };
}

/** One wake: looks at the register and fires the due jobs; returns the ms to sleep next. */
async function wake(
  options: DaemonOptions,
  clock: Clock,
  runtime: RuntimeCache,
  loop: Loop,
): Promise<number> {
  const { worktree, tickSeconds, log } = options;
  const files = filesSignature(worktree);
  const quiet = loop.quiet;
  // A clock that stepped back (before `since`) ends the quiet: next runs may be far off now.
  if (quiet && quiet.files === files && quiet.since <= clock.now() && clock.now() < quiet.until) {
    return Math.min(tickSeconds * 1000, quiet.until - clock.now());
  }
  loop.quiet = null;
  if (!await isTrusted(worktree)) {
    if (!loop.untrustedSaid) {
      log(
        `${worktree} is not trusted: no job fires here until you run svc trust ${worktree} ` +
          "(checked again every tick)",
      );
      loop.untrustedSaid = true;
    }
    await runtime.close();
    return tickSeconds * 1000;
  }
  if (loop.untrustedSaid) log(`${worktree} is trusted now: jobs fire`);
  loop.untrustedSaid = false;
  if (loop.broken && loop.broken.files === files) return tickSeconds * 1000;
  try {
    const wait = await look(options, clock, runtime, loop);
    if (loop.broken) log(`${registerPath(worktree)} reads again: jobs fire`);
    loop.broken = null;
    return wait;
  } catch (err) {
    if (!(err instanceof RegisterError)) throw err;
    // A broken register stops nothing but the firing: said once, looked at again when it changes,
    // and the windows that pass meanwhile are skipped as after a start (never replayed).
    if (loop.broken?.message !== err.message) {
      log(`${err.message}; no job fires until it is fixed (looked at again when it changes)`);
    }
    loop.broken = { files, message: err.message };
    loop.startup = true;
    loop.quiet = null;
    return tickSeconds * 1000;
  }
}

/** The look at a readable register: reconcile, fire the due jobs; returns the ms to sleep next. */
async function look(
  options: DaemonOptions,
  clock: Clock,
  runtime: RuntimeCache,
  loop: Loop,
): Promise<number> {
  const { worktree, tickSeconds } = options;
  // One read of the register and the grants per idle wake; the lock only when a job needs
  // reconciling (always at startup).
  let snapshot = await readSnapshot(worktree);
  if (
    loop.startup ||
    await needsReconcile(worktree, snapshot, new Date(clock.now()), tickSeconds * 1000)
  ) {
    await reconcileAll(worktree, new Date(clock.now()), loop.startup, tickSeconds * 1000);
    snapshot = await readSnapshot(worktree);
  }
  loop.startup = false;
  const { ran, refused } = await fireDue(options, clock, runtime, snapshot, loop);
  if (options.signal.aborted) return 0;
  if (ran) snapshot = await readSnapshot(worktree);
  const now = new Date(clock.now());
  const wait = await nextWake(worktree, snapshot, now, tickSeconds, refused);
  if (!ran && !refused) loop.quiet = quietUntil(snapshot.jobs, now, filesSignature(worktree));
  return wait;
}

/** Runs the snapshot's due jobs one at a time, in its (name) order. */
async function fireDue(
  options: DaemonOptions,
  clock: Clock,
  runtime: RuntimeCache,
  snapshot: Snapshot,
  loop: Loop,
): Promise<{ ran: boolean; refused: boolean }> {
  const { worktree, signal, log } = options;
  let ran = false;
  let refused = false;
  for (const job of snapshot.jobs) {
    if (signal.aborted) break;
    const approval = await approvalOf(job, { worktree, grant: snapshot.grants.get(job.name) });
    if (!isDue(job, { approval, now: new Date(clock.now()) })) continue;
    ran = true;
    const report = await runJob({
      worktree,
      name: job.name,
      by: "daemon",
      runtime: runtime.get,
      signal,
      clock,
      attempt: options.attempt,
      log,
    });
    if ("refused" in report) {
      refused = true;
      log(`not fired: ${report.refused}`);
      continue;
    }
    loop.fired++;
    log(
      `job ${report.name}: run ${report.run} ${report.state}` +
        (report.error ? `: ${report.error}` : "") + ` (session ${report.session ?? "none"})`,
    );
  }
  return { ran, refused };
}

/**
 * What the daemon's decisions read from disk, as stat data (mtime, size, inode) of each file.
 * Synchronous on purpose: three stats take microseconds, and Deno's asynchronous ones start a
 * blocking-pool thread after every idle pause.
 */
function filesSignature(worktree: string): string {
  const one = (path: string) => {
    try {
      const info = Deno.statSync(path);
      return `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
    } catch {
      return "-";
    }
  };
  return [registerPath(worktree), approvalsPath(), trustedPath()].map(one).join("|");
}

/**
 * Until when idle wakes may skip the look at the register: none while a job is executing (its
 * runner may have died), past its next run or more than a period before it (reconcile moves
 * those; the clock may have stepped back); else the earliest next run.
 */
function quietUntil(
  jobs: readonly Job[],
  now: Date,
  files: string,
): { files: string; since: number; until: number } | null {
  let until = Infinity;
  for (const job of jobs) {
    if (job.state === "executing") return null;
    if (!job.enabled || !job.next_run_at) continue;
    const next = new Date(job.next_run_at).getTime();
    if (next <= now.getTime() || beyondSchedule(job, now)) return null;
    until = Math.min(until, next);
  }
  return { files, since: now.getTime(), until };
}

interface Snapshot {
  jobs: Job[];
  grants: Map<string, Grant>;
}

async function readSnapshot(worktree: string): Promise<Snapshot> {
  const [{ jobs }, grants] = await Promise.all([readRegister(worktree), loadGrants(worktree)]);
  return { jobs, grants };
}

/** Whether reconcile would change a job of the snapshot (checked on copies, without the lock). */
async function needsReconcile(
  worktree: string,
  snapshot: Snapshot,
  now: Date,
  graceMs: number,
): Promise<boolean> {
  for (const job of snapshot.jobs) {
    const running = job.state === "executing" &&
      await daemonHolder(runLockPath(worktree, job.name)) !== undefined;
    const approval = await approvalOf(job, { worktree, grant: snapshot.grants.get(job.name) });
    if (reconcile(structuredClone(job), { approval, now, running, startup: false, graceMs })) {
      return true;
    }
  }
  return false;
}

/** Milliseconds until the earliest job the daemon may fire, at most one tick. */
async function nextWake(
  worktree: string,
  snapshot: Snapshot,
  now: Date,
  tickSeconds: number,
  refused: boolean,
): Promise<number> {
  const grants = snapshot.grants;
  let wait = tickSeconds * 1000;
  for (const job of snapshot.jobs) {
    if (!job.enabled || !job.next_run_at || job.state === "executing") continue;
    if (!authorized(job, await approvalOf(job, { worktree, grant: grants.get(job.name) }))) {
      continue;
    }
    const due = new Date(job.next_run_at).getTime() - now.getTime();
    wait = Math.min(wait, Math.max(due, refused ? RETRY_REFUSED_MS : 0));
  }
  return Math.max(wait, 0);
}

/** Stale `executing` states, changed definitions, and at startup the windows missed meanwhile. */
async function reconcileAll(
  worktree: string,
  now: Date,
  startup: boolean,
  graceMs: number,
): Promise<void> {
  const grants = await loadGrants(worktree);
  await updateRegister(worktree, async (jobs) => {
    for (const job of jobs) {
      const running = job.state === "executing" &&
        await daemonHolder(runLockPath(worktree, job.name)) !== undefined;
      const approval = await approvalOf(job, { worktree, grant: grants.get(job.name) });
      reconcile(job, { approval, now, running, startup, graceMs });
    }
  });
}
