/**
 * The supervisor's timing and limits: SPEC's defaults, each overridable through an environment
 * variable (an operator and test seam; docs/fleet.md lists them). Durations are in seconds in
 * the environment and in milliseconds here.
 */

/** Everything the supervisor's timing and port allocation depend on. */
export interface FleetTuning {
  /** The sweep interval (SPEC: 2 s). */
  sweepMs: number;
  /** Timeout of one `GET /health` probe (SPEC: 2 s). */
  healthTimeoutMs: number;
  /** Consecutive failed probes of a running agent that count as a failure (SPEC: 2). */
  unhealthyThreshold: number;
  /** The first restart delay (SPEC: 5 s), doubled per consecutive failure... */
  backoffMs: number;
  /** ...up to this cap (SPEC: 60 s). */
  backoffMaxMs: number;
  /** Between SIGINT to an agent's process group and SIGKILL. */
  graceMs: number;
  /** How long a started agent may take to first answer /health before that is a failure. */
  startTimeoutMs: number;
  /** Ports tried after prefer_port (SPEC: 8780-8890), inclusive. */
  ports: { first: number; last: number };
  /** An agent log past this size is rotated. */
  logMaxBytes: number;
}

export const DEFAULT_TUNING: Readonly<FleetTuning> = {
  sweepMs: 2_000,
  healthTimeoutMs: 2_000,
  unhealthyThreshold: 2,
  backoffMs: 5_000,
  backoffMaxMs: 60_000,
  graceMs: 10_000,
  startTimeoutMs: 60_000,
  ports: { first: 8780, last: 8890 },
  logMaxBytes: 10 << 20,
};

/** The environment variables of the seam, with what each sets. */
export const TUNING_VARIABLES = {
  SVC_FLEET_SWEEP: "sweep interval, seconds",
  SVC_FLEET_HEALTH_TIMEOUT: "health probe timeout, seconds",
  SVC_FLEET_UNHEALTHY_THRESHOLD: "consecutive failed probes that count as a failure",
  SVC_FLEET_BACKOFF: "first restart delay, seconds",
  SVC_FLEET_BACKOFF_MAX: "restart delay cap, seconds",
  SVC_FLEET_GRACE: "seconds between SIGINT and SIGKILL when stopping an agent",
  SVC_FLEET_START_TIMEOUT: "seconds a started agent has to answer /health",
  SVC_FLEET_PORT_RANGE: "ports to allocate from, as first-last",
  SVC_FLEET_LOG_MAX_BYTES: "size at which an agent log is rotated",
} as const;

/**
 * The tuning from `env` over the defaults. Throws an Error naming the variable when a value is
 * not valid.
 */
export function tuningFromEnv(env: (name: string) => string | undefined): FleetTuning {
  const tuning: FleetTuning = { ...DEFAULT_TUNING, ports: { ...DEFAULT_TUNING.ports } };
  const seconds = (name: keyof typeof TUNING_VARIABLES, min: number) => {
    const text = env(name);
    if (text === undefined || text === "") return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || !/^\d+(\.\d+)?$/.test(text.trim())) {
      throw new Error(`${name} must be a number of seconds of at least ${min}, not "${text}"`);
    }
    return Math.round(value * 1000);
  };
  const integer = (name: keyof typeof TUNING_VARIABLES, min: number) => {
    const text = env(name);
    if (text === undefined || text === "") return undefined;
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) {
      throw new Error(`${name} must be an integer of at least ${min}, not "${text}"`);
    }
    return Number(text);
  };
  tuning.sweepMs = seconds("SVC_FLEET_SWEEP", 0.05) ?? tuning.sweepMs;
  tuning.healthTimeoutMs = seconds("SVC_FLEET_HEALTH_TIMEOUT", 0.05) ?? tuning.healthTimeoutMs;
  tuning.unhealthyThreshold = integer("SVC_FLEET_UNHEALTHY_THRESHOLD", 1) ??
    tuning.unhealthyThreshold;
  tuning.backoffMs = seconds("SVC_FLEET_BACKOFF", 0) ?? tuning.backoffMs;
  tuning.backoffMaxMs = seconds("SVC_FLEET_BACKOFF_MAX", 0) ?? tuning.backoffMaxMs;
  tuning.graceMs = seconds("SVC_FLEET_GRACE", 0) ?? tuning.graceMs;
  tuning.startTimeoutMs = seconds("SVC_FLEET_START_TIMEOUT", 0.1) ?? tuning.startTimeoutMs;
  tuning.logMaxBytes = integer("SVC_FLEET_LOG_MAX_BYTES", 1024) ?? tuning.logMaxBytes;
  const range = env("SVC_FLEET_PORT_RANGE");
  if (range) tuning.ports = parsePortRange(range, "SVC_FLEET_PORT_RANGE");
  if (tuning.backoffMaxMs < tuning.backoffMs) {
    throw new Error("SVC_FLEET_BACKOFF_MAX must not be below SVC_FLEET_BACKOFF");
  }
  return tuning;
}

/** `first-last` (or one port) as an inclusive range of valid ports. */
export function parsePortRange(text: string, what: string): { first: number; last: number } {
  const match = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5}))?\s*$/.exec(text);
  const first = Number(match?.[1]);
  const last = Number(match?.[2] ?? match?.[1]);
  if (!match || first < 1 || last > 65535 || last < first) {
    throw new Error(`${what} must be a port range like 8780-8890, not "${text}"`);
  }
  return { first, last };
}

/** The restart delay after `failures` consecutive failures (1 or more): doubling, capped. */
export function backoffDelay(
  failures: number,
  tuning: Pick<FleetTuning, "backoffMs" | "backoffMaxMs">,
): number {
  const doublings = Math.max(0, failures - 1);
  return Math.min(tuning.backoffMaxMs, tuning.backoffMs * 2 ** Math.min(doublings, 30));
}
