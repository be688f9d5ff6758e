/**
 * `<root>/.svc/fleet.state.json`: runtime data only (pids, start times, ports, statuses, restart
 * counts, last exit and error), written by the supervisor under the file's lock, plus the
 * requests other svc commands leave for it (`fleet restart`). Never configuration: deleting it
 * loses nothing an operator chose.
 */
import * as z from "zod";
import { readJson, updateJson } from "../util/json_file.ts";
import { fleetPaths } from "./roster.ts";

/**
 * Every state an agent can be in. `starting`: spawned (or adopted), not yet answering /health;
 * `running`: alive and has answered; `backoff`: failed, waiting for its next retry; `crashed`:
 * failed past max_restarts, left alone until `fleet restart` or enable; `stopping`: SIGINT sent,
 * SIGKILL after the grace period; `stopped`: not running because it was stopped (`fleet down`)
 * or not started yet; `disabled`: `enabled: false` in the roster.
 */
export const AGENT_STATES = [
  "starting",
  "running",
  "backoff",
  "crashed",
  "stopping",
  "stopped",
  "disabled",
] as const;
export type AgentStateName = typeof AGENT_STATES[number];

/** The last probe's verdict, apart from the state: `unknown` until probed, or when not running. */
export const HEALTH_VALUES = ["healthy", "unhealthy", "unknown"] as const;
export type Health = typeof HEALTH_VALUES[number];

const ExitSchema = z.object({
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  at: z.string(),
});
export type LastExit = z.infer<typeof ExitSchema>;

export const AgentStatusSchema = z.object({
  name: z.string(),
  dir: z.string(),
  state: z.enum(AGENT_STATES),
  health: z.enum(HEALTH_VALUES),
  pid: z.number().int().nullable(),
  /** With pid, names one process (src/util/process_identity.ts). */
  start_time: z.string().nullable(),
  port: z.number().int().nullable(),
  /** Respawns after failures since the last `fleet up`, restart or enable. */
  restarts: z.number().int().min(0),
  /** Consecutive failed health probes. */
  probe_failures: z.number().int().min(0),
  /** Consecutive failures, for the backoff (reset once the agent stays healthy). */
  backoff_failures: z.number().int().min(0),
  started_at: z.string().nullable(),
  healthy_since: z.string().nullable(),
  next_retry_at: z.string().nullable(),
  last_exit: ExitSchema.nullable(),
  last_error: z.string().nullable(),
});
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

const RequestSchema = z.object({
  /** An agent name, or `all`. */
  agent: z.string(),
  action: z.literal("restart"),
  at: z.string(),
});
export type FleetRequest = z.infer<typeof RequestSchema>;

export const FleetStateSchema = z.object({
  supervisor: z.object({ pid: z.number().int(), started_at: z.string() }).nullable().default(null),
  updated_at: z.string().nullable().default(null),
  agents: z.record(z.string(), AgentStatusSchema).default({}),
  requests: z.array(RequestSchema).default([]),
});
export type FleetState = z.infer<typeof FleetStateSchema>;

/** An empty state. */
export function emptyState(): FleetState {
  return { supervisor: null, updated_at: null, agents: {}, requests: [] };
}

/** A fresh status for an agent that has not run. */
export function newStatus(name: string, dir: string): AgentStatus {
  return {
    name,
    dir,
    state: "stopped",
    health: "unknown",
    pid: null,
    start_time: null,
    port: null,
    restarts: 0,
    probe_failures: 0,
    backoff_failures: 0,
    started_at: null,
    healthy_since: null,
    next_retry_at: null,
    last_exit: null,
    last_error: null,
  };
}

/** Parses a state value; anything unreadable is an empty state and a warning. */
export function parseState(value: unknown, path: string): { state: FleetState; warning?: string } {
  if (value === undefined) return { state: emptyState() };
  const parsed = FleetStateSchema.safeParse(value);
  if (parsed.success) return { state: parsed.data };
  return {
    state: emptyState(),
    warning: `${path} does not hold a fleet state (${parsed.error.issues[0]?.message}); ignored`,
  };
}

/** The state of `root`'s fleet as last written. */
export async function readState(root: string): Promise<{ state: FleetState; warning?: string }> {
  const path = fleetPaths(root).state;
  const read = await readJson(path);
  if (read.warning) return { state: emptyState(), warning: read.warning };
  return parseState(read.value, path);
}

/** Read-modify-write of the state under its lock. */
export async function updateState<T>(
  root: string,
  edit: (state: FleetState) => T,
): Promise<T> {
  const path = fleetPaths(root).state;
  let result!: T;
  await updateJson(path, (current) => {
    const { state } = parseState(current, path);
    result = edit(state);
    return state;
  }, { mode: 0o600 });
  return result;
}
