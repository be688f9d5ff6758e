/** `fleet status`: the roster joined with the state file and the supervisor's lock. */
import { isTrusted } from "../config/trust.ts";
import { startTimes } from "../util/process_identity.ts";
import { supervisorOf } from "./daemon.ts";
import { agentDir, agentLogPath, loadRoster } from "./roster.ts";
import { type AgentStateName, type Health, type LastExit, readState } from "./state.ts";

/** One agent in `fleet status` (the objects of `--json`). */
export interface AgentReport {
  name: string;
  dir: string;
  enabled: boolean;
  pid: number | null;
  port: number | null;
  state: AgentStateName;
  health: Health;
  restarts: number;
  max_restarts: number;
  last_exit: LastExit | null;
  /** ISO time of the next start attempt while in backoff. */
  next_retry: string | null;
  last_error: string | null;
  /** Whether `svc trust` covers the folder (its .svc/config.json then applies in full). */
  trusted: boolean;
  log: string;
}

/** The fleet of `root` now. */
export interface FleetReport {
  root: string;
  supervisor: { pid: number; started_at: string } | null;
  agents: AgentReport[];
  warnings: string[];
}

/**
 * Every roster agent with its recorded state. Without a supervisor the record may be stale: an
 * agent whose process is gone shows as stopped (or disabled), one still alive keeps its state.
 */
export async function fleetStatus(root: string): Promise<FleetReport> {
  const roster = await loadRoster(root);
  const { state, warning } = await readState(root);
  const holder = await supervisorOf(root);
  const recorded = roster.agents.map((def) => state.agents[def.name]);
  const alive = holder ? undefined : await startTimes(
    recorded.flatMap((s) => (s?.pid ? [s.pid] : [])),
  );
  const agents = await Promise.all(roster.agents.map(async (def, index): Promise<AgentReport> => {
    const s = recorded[index];
    const dir = agentDir(root, def);
    let gone = !s || s.pid === null;
    if (s && s.pid !== null && alive) gone = alive.get(s.pid) !== s.start_time;
    const idle = def.enabled ? (s?.state === "crashed" ? "crashed" : "stopped") : "disabled";
    const live = holder !== undefined && s !== undefined;
    return {
      name: def.name,
      dir,
      enabled: def.enabled,
      pid: gone ? null : s!.pid,
      port: s?.port ?? null,
      state: live ? s.state : gone ? idle : s!.state,
      health: gone ? "unknown" : live ? s.health : "unknown",
      restarts: s?.restarts ?? 0,
      max_restarts: def.max_restarts,
      last_exit: s?.last_exit ?? null,
      next_retry: live ? s.next_retry_at : null,
      last_error: s?.last_error ?? null,
      trusted: await isTrusted(dir).catch(() => false),
      log: agentLogPath(root, def),
    };
  }));
  return {
    root,
    supervisor: holder ? { pid: holder.pid, started_at: holder.started_at } : null,
    agents,
    warnings: warning ? [warning] : [],
  };
}
