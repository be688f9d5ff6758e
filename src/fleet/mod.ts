/**
 * The fleet front-end: a supervisor that keeps many scoped `svc serve` agents of one root alive
 * (roster `.svc/fleet.json`, runtime state `.svc/fleet.state.json`, logs per agent), talking to
 * them only over HTTP (`GET /health`) and signals.
 */
export {
  AGENT_NAME,
  type AgentDef,
  AgentDefSchema,
  agentDir,
  agentLogPath,
  DEFAULT_MAX_RESTARTS,
  fleetPaths,
  loadRoster,
  type Roster,
  rosterDir,
  RosterError,
  updateRoster,
} from "./roster.ts";
export {
  AGENT_STATES,
  type AgentStateName,
  type AgentStatus,
  type FleetState,
  HEALTH_VALUES,
  readState,
} from "./state.ts";
export {
  backoffDelay,
  DEFAULT_TUNING,
  type FleetTuning,
  parsePortRange,
  TUNING_VARIABLES,
  tuningFromEnv,
} from "./tuning.ts";
export { allocatePort, isPortFree, PortsExhaustedError } from "./ports.ts";
export { probeHealth } from "./health.ts";
export { followFile, rotateIfLarge, tailLines } from "./logs.ts";
export { childBaseEnv, Supervisor, type SupervisorOptions } from "./supervisor.ts";
export {
  detachSupervisor,
  type DownReport,
  FleetError,
  requestRestart,
  runSupervisor,
  stopFleet,
  supervisorOf,
} from "./daemon.ts";
export { type AgentReport, type FleetReport, fleetStatus } from "./status.ts";
