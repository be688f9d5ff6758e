/**
 * Agent processes: spawned directly (no shell) as leaders of their own process group and session
 * (setsid), with the log file as stdout and stderr; stopped with SIGINT to the group and SIGKILL
 * after a grace period. Before any signal the pid is checked to still name the process the
 * supervisor started (pid plus start time), so a recycled pid is never signalled.
 */
import { spawn } from "node:child_process";
import { isSameProcess, startTime } from "../util/process_identity.ts";
import type { CommandLine } from "../launch/svc_command.ts";
import { signalGroup } from "../util/process_group.ts";
import { delay } from "../util/time.ts";

/** How a process ended. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** A started agent process this supervisor is the parent of. */
export interface SpawnedAgent {
  pid: number;
  /** Its start time, or null when it was gone before it could be read. */
  start: string | null;
  /** Resolves once it has exited (and been reaped). */
  exited: Promise<ExitInfo>;
}

/**
 * Starts `line` in `cwd` with exactly `env`, stdin from /dev/null and stdout and stderr on
 * `logFd`, in a new session. Rejects with the reason when it cannot be started.
 */
export async function spawnAgent(
  line: CommandLine,
  options: { cwd: string; env: Record<string, string>; logFd: number },
): Promise<SpawnedAgent> {
  const child = spawn(line.command, line.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", options.logFd, options.logFd],
    detached: true,
    shell: false,
  });
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  if (child.pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    throw new Error(`cannot start ${line.command}: ${error.message}`);
  }
  child.on("error", () => {}); // reported through the exit
  const pid = child.pid;
  return { pid, start: (await startTime(pid)) ?? null, exited };
}

/**
 * Stops the group led by `pid` (started at `start`): SIGINT, then SIGKILL when it has not exited
 * after `graceMs`. `exited` (for a child of this process) tells when it is gone; without it (an
 * adopted agent) the pid is polled. Nothing is signalled unless the pid still names that process.
 * Resolves to how it went.
 */
export async function stopGroup(
  pid: number,
  { start, graceMs, exited }: { start: string | null; graceMs: number; exited?: Promise<unknown> },
): Promise<"gone" | "stopped" | "killed"> {
  if (start === null || !(await isSameProcess(pid, start))) return "gone";
  signalGroup(pid, "SIGINT");
  if (await waitGone(pid, start, graceMs, exited)) {
    signalGroup(pid, "SIGKILL"); // what the leader left behind in its group
    return "stopped";
  }
  if (await isSameProcess(pid, start)) signalGroup(pid, "SIGKILL");
  await waitGone(pid, start, 5_000, exited);
  return "killed";
}

/** Whether the process is gone within `ms`. */
async function waitGone(
  pid: number,
  start: string,
  ms: number,
  exited?: Promise<unknown>,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  if (exited) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }
  while (Date.now() < deadline) {
    if (!(await isSameProcess(pid, start))) return true;
    await delay(100);
  }
  return !(await isSameProcess(pid, start));
}
