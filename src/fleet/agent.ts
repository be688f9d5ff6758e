/** One agent as the supervisor holds it, and the small rules over it that need no I/O. */
import { type CommandLine, svcCommand } from "../launch/svc_command.ts";
import type { ProbeResult } from "./health.ts";
import type { ExitInfo } from "./process.ts";
import { type AgentDef, agentDir, type Roster } from "./roster.ts";
import { type AgentStatus, type FleetState, newStatus } from "./state.ts";
import { type FleetTuning, TUNING_VARIABLES } from "./tuning.ts";

/** Why the supervisor stops an agent; decides what the agent becomes once it is gone. */
export type StopReason = "disable" | "down" | "restart" | "edited" | "remove" | "failure";

/** One agent as the supervisor holds it. */
export interface Live {
  status: AgentStatus;
  def?: AgentDef;
  /** What the running process was started from (dir, command, prefer_port). */
  spawnedWith?: string;
  /** Set for a child of this supervisor; undefined for an adopted agent. */
  exited?: Promise<ExitInfo>;
  /** A launch or stop in progress. */
  task?: Promise<void>;
  stopReason?: StopReason;
}

/** How each stop reason reads in the agent's log. */
export const reasonText: Record<StopReason, string> = {
  disable: "disabled in the roster",
  down: "fleet down",
  restart: "fleet restart",
  edited: "roster entry changed",
  remove: "removed from the roster",
  failure: "failed",
};

/** `fleet restart` and enabling: the restart count and the backoff start over. */
export function resetCounters(s: AgentStatus): void {
  s.restarts = 0;
  s.backoff_failures = 0;
  s.next_retry_at = null;
  s.last_error = null;
}

/**
 * Counts a failure of `s` (reason `reason`, `max` restarts allowed, 0 for unlimited). Returns true
 * when the restarts are used up and it is crashed now; else one more restart is counted.
 */
export function countFailure(
  s: AgentStatus,
  { reason, max }: { reason: string; max: number },
): boolean {
  s.last_error = reason;
  s.health = "unknown";
  s.backoff_failures++;
  if (max !== 0 && s.restarts >= max) {
    s.state = "crashed";
    s.next_retry_at = null;
    return true;
  }
  s.restarts++;
  return false;
}

/** What identifies a restart request in the state file. */
export function requestKey(request: { agent: string; at: string }): string {
  return `${request.agent}\0${request.at}`;
}

/** What a running process was started from: a change restarts it. */
export function spawnKey(root: string, def: AgentDef): string {
  return JSON.stringify([agentDir(root, def), def.command ?? null, def.prefer_port ?? null]);
}

/** An exit as `last_error` says it. */
export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return `exited on ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

/**
 * The environment agents start from: the supervisor's, without the supervisor's tuning
 * variables and any SVC_FLEET_* of its own (each agent gets its three).
 */
export function childBaseEnv(env: Record<string, string>): Record<string, string> {
  const drop = new Set([
    ...Object.keys(TUNING_VARIABLES),
    "SVC_FLEET_PORT",
    "SVC_FLEET_DIR",
    "SVC_FLEET_AGENT",
  ]);
  return Object.fromEntries(Object.entries(env).filter(([key]) => !drop.has(key)));
}

/**
 * The agents a supervisor starts with: each one `state` records with a pid still alive (its
 * start time in `alive`) is adopted, starting or running as it was, its health to be probed
 * again; every other roster agent starts fresh (`fleet up` gives crashed ones a new start too),
 * keeping its last exit and port.
 */
export function initialAgents(
  root: string,
  { roster, state, alive }: {
    roster: Roster;
    state: FleetState;
    alive: ReadonlyMap<number, string>;
  },
): Map<string, Live> {
  const agents = new Map<string, Live>();
  const defs = new Map(roster.agents.map((def) => [def.name, def]));
  for (const status of Object.values(state.agents)) {
    const def = defs.get(status.name);
    const live = status.pid !== null && status.start_time !== null &&
      alive.get(status.pid) === status.start_time;
    if (!live) continue;
    agents.set(status.name, {
      status: {
        ...status,
        state: status.state === "running" ? "running" : "starting",
        health: "unknown",
        probe_failures: 0,
      },
      def,
      spawnedWith: def ? spawnKey(root, def) : undefined,
    });
  }
  for (const def of roster.agents) {
    if (agents.has(def.name)) continue;
    const previous = state.agents[def.name];
    const status = newStatus(def.name, agentDir(root, def));
    if (previous) {
      status.last_exit = previous.last_exit;
      status.port = previous.port;
    }
    agents.set(def.name, { status, def });
  }
  return agents;
}

/**
 * One `/health` outcome for a starting or running agent at `now`. The first healthy answer makes
 * it running ("healthy" is returned); healthy for the backoff cap, its backoff starts over. A
 * starting agent may fail until its start timeout; a running one fails after
 * `unhealthyThreshold` consecutive failed probes. Returns the failure to stop it for, if any.
 */
export function applyProbe(
  s: AgentStatus,
  { result, now, tuning }: { result: ProbeResult; now: number; tuning: FleetTuning },
): "healthy" | { failure: string } | undefined {
  if (result.ok) {
    const first = s.state === "starting";
    if (first) s.healthy_since = new Date(now).toISOString();
    s.state = "running";
    s.health = "healthy";
    s.probe_failures = 0;
    if (s.healthy_since && now - Date.parse(s.healthy_since) >= tuning.backoffMaxMs) {
      s.backoff_failures = 0; // stable again: the next failure waits the first delay
    }
    return first ? "healthy" : undefined;
  }
  if (s.state === "starting") {
    const started = Date.parse(s.started_at ?? "") || now;
    if (now - started < tuning.startTimeoutMs) return undefined;
    return {
      failure: `did not answer /health within ${tuning.startTimeoutMs / 1000} s of starting`,
    };
  }
  s.probe_failures++;
  s.health = "unhealthy";
  s.last_error = result.reason;
  if (s.probe_failures < tuning.unhealthyThreshold) return undefined;
  return { failure: `${s.probe_failures} consecutive health probes failed (${result.reason})` };
}

/** Ports agents other than `except` hold (running, starting, stopping, or being launched now). */
export function takenPorts(agents: Iterable<Live>, except: Live): Set<number> {
  const taken = new Set<number>();
  for (const live of agents) {
    const holds = live.status.pid !== null || live.task !== undefined;
    if (live !== except && live.status.port !== null && holds) taken.add(live.status.port);
  }
  return taken;
}

/** What an agent runs: its `command`, else `svc serve` on `port` in `dir`. */
export function launchLine(
  def: AgentDef,
  { port, dir }: { port: number; dir: string },
): CommandLine {
  return def.command
    ? { command: def.command[0], args: def.command.slice(1) }
    : svcCommand(["serve", "--host", "127.0.0.1", "--port", String(port), "--path", dir]);
}

/** An agent's environment: `base` (see `childBaseEnv`) and its three SVC_FLEET_* variables. */
export function agentEnv(
  base: Record<string, string>,
  { name, port, dir }: { name: string; port: number; dir: string },
): Record<string, string> {
  return { ...base, SVC_FLEET_PORT: String(port), SVC_FLEET_DIR: dir, SVC_FLEET_AGENT: name };
}
