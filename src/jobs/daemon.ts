/**
 * The jobs daemon: one per worktree (a daemon lock that names its holder), it sleeps until the
 * earliest due job or one tick, whichever comes first, re-reads the register on every wake (so
 * CLI edits apply), and fires due jobs one at a time in name order. It never approves anything,
 * fires nothing in an untrusted worktree, and never replays windows that passed while no daemon
 * ran. Stopping it (its signal) cancels the running attempt, which is saved as cancelled.
 */
import { isTrusted } from "../config/trust.ts";
import { sleep } from "../provider/http_util.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { acquireDaemonLock, daemonHolder } from "../util/daemon_lock.ts";
import { approvalOf, loadGrants } from "./approvals.ts";
import { readRegister, updateRegister } from "./register.ts";
import { runJob } from "./runner.ts";
import { authorized, isDue, reconcile } from "./states.ts";
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
  clock?: () => Date;
  /** Base of the retry backoff (tests). */
  backoffBaseMs?: number;
}

/**
 * Runs the daemon until `signal` aborts. Resolves to a refusal when another daemon holds the
 * worktree's lock, else to the number of runs it fired.
 */
export async function runDaemon(
  options: DaemonOptions,
): Promise<{ refused: string } | { fired: number }> {
  const { worktree, signal, log } = options;
  const clock = options.clock ?? (() => new Date());
  const taken = await acquireDaemonLock(daemonLockPath(worktree), "svc jobs daemon");
  if (!taken.lock) {
    const h = taken.heldBy;
    return {
      refused: `a jobs daemon already runs for ${worktree}` +
        (h ? ` (pid ${h.pid}, started ${h.started_at})` : "") + "; stop it first",
    };
  }
  let runtime: Promise<Runtime> | null = null;
  const getRuntime = () => {
    runtime ??= options.loadRuntime();
    runtime.catch(() => runtime = null);
    return runtime;
  };
  const closeRuntime = async () => {
    const current = runtime;
    runtime = null;
    if (current) (await current.catch(() => null))?.plugins.close();
  };
  let fired = 0;
  let startup = true;
  let untrustedSaid = false;
  try {
    log(`started for ${worktree} (pid ${Deno.pid}, tick ${options.tickSeconds} s)`);
    while (!signal.aborted) {
      if (!await isTrusted(worktree)) {
        if (!untrustedSaid) {
          log(
            `${worktree} is not trusted: no job fires here until you run svc trust ${worktree} ` +
              "(checked again every tick)",
          );
          untrustedSaid = true;
        }
        await closeRuntime();
        await sleep(options.tickSeconds, signal);
        continue;
      }
      if (untrustedSaid) log(`${worktree} is trusted now: jobs fire`);
      untrustedSaid = false;
      await reconcileAll(worktree, clock(), startup, options.tickSeconds * 1000);
      startup = false;
      const grants = await loadGrants(worktree);
      const { jobs } = await readRegister(worktree);
      let refused = false;
      for (const job of jobs) {
        if (signal.aborted) break;
        if (!isDue(job, await approvalOf(job, worktree, grants.get(job.name)), clock())) continue;
        const report = await runJob({
          worktree,
          name: job.name,
          by: "daemon",
          runtime: getRuntime,
          signal,
          clock,
          log,
          backoffBaseMs: options.backoffBaseMs,
        });
        if ("refused" in report) {
          refused = true;
          log(`not fired: ${report.refused}`);
          continue;
        }
        fired++;
        log(
          `job ${report.name}: run ${report.run} ${report.state}` +
            (report.error ? `: ${report.error}` : "") + ` (session ${report.session ?? "none"})`,
        );
      }
      if (signal.aborted) break;
      await sleep(await nextWake(worktree, clock(), options.tickSeconds, refused) / 1000, signal);
    }
  } finally {
    await closeRuntime();
    taken.lock.release();
    log("stopped");
  }
  return { fired };
}

/** Milliseconds until the earliest job the daemon may fire, at most one tick. */
async function nextWake(
  worktree: string,
  now: Date,
  tickSeconds: number,
  refused: boolean,
): Promise<number> {
  const grants = await loadGrants(worktree);
  let wait = tickSeconds * 1000;
  for (const job of (await readRegister(worktree)).jobs) {
    if (!job.enabled || !job.next_run_at || job.state === "executing") continue;
    if (!authorized(job, await approvalOf(job, worktree, grants.get(job.name)))) continue;
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
      const approval = await approvalOf(job, worktree, grants.get(job.name));
      reconcile(job, approval, now, { running, startup, graceMs });
    }
  });
}
