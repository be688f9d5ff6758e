/**
 * Running the supervisor: in the foreground (`fleet up`, until Ctrl-C or SIGTERM), as a detached
 * daemon (`fleet up --detach`: the same command started in its own session with its output in
 * `<root>/.svc/fleet.log`), and stopping it (`fleet down`). One supervisor per roster: each holds
 * the roster's daemon lock, which the kernel frees when the holder dies however it dies.
 */
import { spawn } from "node:child_process";
import { acquireDaemonLock, type DaemonHolder, daemonHolder } from "../util/daemon_lock.ts";
import { startTimes } from "../util/process_identity.ts";
import { svcCommand } from "../launch/svc_command.ts";
import { closeLogFd, openLogFd, tailLines } from "./logs.ts";
import { signalGroup } from "../util/process_group.ts";
import { stopGroup } from "./process.ts";
import { fleetPaths, loadRoster } from "./roster.ts";
import { readState, updateState } from "./state.ts";
import { Supervisor } from "./supervisor.ts";
import type { FleetTuning } from "./tuning.ts";
import { delay } from "../util/time.ts";

/** What the daemon lock file records as its holder. */
export const SUPERVISOR_COMMAND = "svc fleet up";

/** Something about the fleet that keeps a command from doing its job; the message says what to do. */
export class FleetError extends Error {
  override name = "FleetError";
}

function alreadyRuns(root: string, holder: DaemonHolder | undefined): FleetError {
  const who = holder?.pid ? ` (pid ${holder.pid}, since ${holder.started_at})` : "";
  return new FleetError(
    `a fleet supervisor already runs for ${root}${who}; see svc fleet status, stop it with ` +
      "svc fleet down",
  );
}

/**
 * Runs the supervisor of `root` in this process until SIGINT or SIGTERM (or `signal`), then stops
 * every agent. A second SIGINT kills the agents at once and exits.
 */
export async function runSupervisor(
  root: string,
  tuning: FleetTuning,
  options: { log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<void> {
  const log = options.log ?? ((line: string) => console.error(line));
  await loadRoster(root); // an invalid roster is reported before anything starts
  const got = await acquireDaemonLock(fleetPaths(root).lock, SUPERVISOR_COMMAND);
  if (!got.lock) throw alreadyRuns(root, got.heldBy);
  const supervisor = new Supervisor({ root, tuning, log });
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  let signals = 0;
  const stop = () => {
    if (++signals === 1) {
      log("svc fleet: stopping every agent (Ctrl-C again to kill them at once)");
      controller.abort();
      return;
    }
    for (const status of supervisor.statuses()) {
      if (status.pid !== null) signalGroup(status.pid, "SIGKILL");
    }
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    await supervisor.run(controller.signal);
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    got.lock.release();
  }
}

/**
 * Starts the supervisor of `root` as a daemon in its own session, its output appended to
 * `<root>/.svc/fleet.log`, and resolves once it holds the lock (its pid). Rejects when one
 * already runs or when the daemon ends before taking the lock (with the end of its log).
 */
export async function detachSupervisor(root: string): Promise<{ pid: number; log: string }> {
  const paths = fleetPaths(root);
  const holder = await daemonHolder(paths.lock);
  if (holder) throw alreadyRuns(root, holder);
  await loadRoster(root);
  const fd = await openLogFd(paths.log);
  const line = svcCommand(["fleet", "up", "--path", root]);
  let child;
  try {
    child = spawn(line.command, line.args, {
      cwd: root,
      env: Deno.env.toObject(),
      stdio: ["ignore", fd, fd],
      detached: true,
      shell: false,
    });
  } finally {
    closeLogFd(fd);
  }
  if (child.pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    throw new FleetError(`cannot start the supervisor: ${error.message}`);
  }
  const pid = child.pid;
  let ended = false;
  child.once("exit", () => {
    ended = true;
  });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      const now = await daemonHolder(paths.lock);
      if (now?.pid === pid) return { pid, log: paths.log };
      // Only the child's exit means it failed: a holder naming another pid (or none) is also what
      // the lock file says in the moment after the child took the lock and before it wrote its
      // pid, and a second supervisor that really holds it makes the child exit.
      if (ended) break;
      await delay(100);
    }
    const tail = (await tailLines(paths.log, 5).catch(() => [])).join("\n");
    throw new FleetError(
      `the supervisor did not start${
        ended ? " (it exited)" : ""
      }; the end of ${paths.log}:\n${tail}`,
    );
  } finally {
    child.unref();
  }
}

/** What `fleet down` did. */
export interface DownReport {
  /** The supervisor it stopped, if one ran. */
  supervisor?: number;
  /** Agents it stopped itself (left running by a supervisor that died). */
  leftovers: string[];
}

/**
 * Stops the supervisor of `root` (SIGTERM; it stops its agents) and waits until it is gone, then
 * stops any agent the state file still names as alive (a supervisor killed with SIGKILL leaves
 * its agents running), so no agent process outlives this call.
 */
export async function stopFleet(root: string, tuning: FleetTuning): Promise<DownReport> {
  const paths = fleetPaths(root);
  const report: DownReport = { leftovers: [] };
  const holder = await daemonHolder(paths.lock);
  if (holder?.pid) {
    report.supervisor = holder.pid;
    try {
      Deno.kill(holder.pid, "SIGTERM");
    } catch {
      // gone already
    }
    const deadline = Date.now() + tuning.graceMs + 30_000;
    while (await daemonHolder(paths.lock)) {
      if (Date.now() > deadline) {
        throw new FleetError(
          `the supervisor (pid ${holder.pid}) did not stop within ${
            (tuning.graceMs + 30_000) / 1000
          } s; kill it (kill -KILL ${holder.pid}) and run svc fleet down again`,
        );
      }
      await delay(100);
    }
  }
  const { state } = await readState(root);
  const recorded = Object.values(state.agents).filter((s) => s.pid !== null);
  const alive = await startTimes(recorded.map((s) => s.pid!));
  const running = recorded.filter((s) =>
    s.start_time !== null && alive.get(s.pid!) === s.start_time
  );
  await Promise.all(
    running.map((s) => stopGroup(s.pid!, { start: s.start_time, graceMs: tuning.graceMs })),
  );
  report.leftovers = running.map((s) => s.name);
  if (recorded.length || holder) {
    await updateState(root, (next) => {
      next.supervisor = null;
      next.updated_at = new Date().toISOString();
      for (const s of Object.values(next.agents)) {
        if (s.pid !== null && s.state !== "disabled" && s.state !== "crashed") s.state = "stopped";
        s.pid = null;
        s.start_time = null;
        s.health = "unknown";
        s.next_retry_at = null;
      }
    });
  }
  return report;
}

/** Leaves a restart request for the running supervisor (`agent` a name or `all`). */
export async function requestRestart(root: string, agent: string): Promise<void> {
  const holder = await daemonHolder(fleetPaths(root).lock);
  if (!holder) {
    throw new FleetError(
      `no fleet supervisor runs for ${root}; start it with svc fleet up (it starts every agent)`,
    );
  }
  await updateState(root, (state) => {
    state.requests.push({ agent, action: "restart", at: new Date().toISOString() });
  });
}

/** The supervisor holding `root`'s lock, if any. */
export function supervisorOf(root: string): Promise<DaemonHolder | undefined> {
  return daemonHolder(fleetPaths(root).lock);
}
