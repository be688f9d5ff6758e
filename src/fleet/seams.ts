/**
 * What the supervisor takes from the world, as parameters, besides its clock (`Clock` in
 * src/util/time.ts): the agent processes (start, stop, see alive), a health prober and a port
 * probe. The real ones are the defaults; tests pass fakes and drive the state machine on fake time
 * in-process (DESIGN 6).
 */
import type { CommandLine } from "../launch/svc_command.ts";
import { signalGroup } from "../util/process_group.ts";
import { startTimes } from "../util/process_identity.ts";
import { probeHealth, type ProbeResult } from "./health.ts";
import { isPortFree } from "./ports.ts";
import { spawnAgent, type SpawnedAgent, stopGroup } from "./process.ts";

/** Agent processes: started, stopped and looked up by pid and start time. */
export interface AgentProcesses {
  /** Starts `line` (see `spawnAgent`); rejects with the reason when it cannot be started. */
  spawn(
    line: CommandLine,
    options: { cwd: string; env: Record<string, string>; logFd: number },
  ): Promise<SpawnedAgent>;
  /** Stops the group led by `pid` (see `stopGroup`). */
  stop(
    pid: number,
    options: { start: string | null; graceMs: number; exited?: Promise<unknown> },
  ): Promise<"gone" | "stopped" | "killed">;
  /** The start time of each of `pids` that is alive. */
  startTimes(pids: readonly number[]): Promise<Map<number, string>>;
  /** SIGKILL to the group `pid` led (what a reaped agent left behind). */
  killGroup(pid: number): void;
}

/** `GET /health` of the agent on `port`, within `timeoutMs`. */
export type HealthProber = (port: number, timeoutMs: number) => Promise<ProbeResult>;

/** Whether `port` can be bound now. */
export type PortProbe = (port: number) => boolean;

export const realProcesses: AgentProcesses = {
  spawn: spawnAgent,
  stop: stopGroup,
  startTimes,
  killGroup: (pid) => void signalGroup(pid, "SIGKILL"),
};

export const realProber: HealthProber = probeHealth;

export const realPortProbe: PortProbe = (port) => isPortFree(port);
