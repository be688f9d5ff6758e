/**
 * The supervisor: one per roster. Every sweep (2 s) it rereads the roster, takes the requests
 * other commands left in the state file, starts what should run (port by bind probe, prefer_port
 * first), probes `GET /health` of what runs, applies the restart policy (backoff 5 s doubling to
 * 60 s; crashed past max_restarts), stops what was disabled, removed or edited, rotates logs and
 * writes the state file when it changed. Agent exits are seen at once through the child's exit
 * (or, for agents adopted from an earlier supervisor, by their pid and start time each sweep).
 */
import { sleep } from "../util/time.ts";
import { signalGroup } from "../util/process_group.ts";
import { startTimes } from "../util/process_identity.ts";
import { svcCommand } from "../util/svc_command.ts";
import { probeHealth } from "./health.ts";
import { closeLogFd, logLine, openLogFd, rotateIfLarge } from "./logs.ts";
import { allocatePort, PortsExhaustedError } from "./ports.ts";
import { type ExitInfo, spawnAgent, stopGroup } from "./process.ts";
import { type AgentDef, agentDir, agentLogPath, loadRoster, type Roster } from "./roster.ts";
import { type AgentStatus, newStatus, readState, updateState } from "./state.ts";
import { backoffDelay, type FleetTuning, TUNING_VARIABLES } from "./tuning.ts";

/** Why the supervisor stops an agent; decides what the agent becomes once it is gone. */
type StopReason = "disable" | "down" | "restart" | "edited" | "remove" | "failure";

/** One agent as the supervisor holds it. */
interface Live {
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

/** How a supervisor runs. */
export interface SupervisorOptions {
  root: string;
  tuning: FleetTuning;
  /** The environment agents start from (the supervisor's own, by default). */
  env?: Record<string, string>;
  /** The supervisor's own output (a line per event). */
  log?: (line: string) => void;
}

/** The supervisor of one fleet root. */
export class Supervisor {
  readonly root: string;
  readonly tuning: FleetTuning;
  #env: Record<string, string>;
  #log: (line: string) => void;
  #agents = new Map<string, Live>();
  #roster: Roster = { agents: [] };
  #rosterProblem?: string;
  #written = "";
  #startedAt = new Date().toISOString();
  #shuttingDown = false;

  constructor(options: SupervisorOptions) {
    this.root = options.root;
    this.tuning = options.tuning;
    this.#env = childBaseEnv(options.env ?? Deno.env.toObject());
    this.#log = options.log ?? ((line) => console.error(line));
  }

  /** The agents' statuses now, in roster order (then any being removed). */
  statuses(): AgentStatus[] {
    return [...this.#agents.values()].map((live) => ({ ...live.status }));
  }

  /**
   * Loads the roster (an invalid one is an Error) and adopts the live agents an earlier
   * supervisor of this root left running, instead of starting them twice.
   */
  async start(): Promise<void> {
    this.#roster = await loadRoster(this.root);
    const { state, warning } = await readState(this.root);
    if (warning) this.#log(`svc fleet: warning: ${warning}`);
    const recorded = Object.values(state.agents);
    const alive = await startTimes(recorded.flatMap((s) => (s.pid ? [s.pid] : [])));
    const defs = new Map(this.#roster.agents.map((def) => [def.name, def]));
    for (const status of recorded) {
      const def = defs.get(status.name);
      const live = status.pid !== null && status.start_time !== null &&
        alive.get(status.pid) === status.start_time;
      if (!live) continue;
      const entry: Live = {
        status: {
          ...status,
          state: status.state === "running" ? "running" : "starting",
          health: "unknown",
          probe_failures: 0,
        },
        def,
        spawnedWith: def ? spawnKey(this.root, def) : undefined,
      };
      this.#agents.set(status.name, entry);
      this.#log(`svc fleet: ${status.name}: adopted pid ${status.pid} on port ${status.port}`);
    }
    // Agents not adopted start fresh: `fleet up` gives crashed ones a new start too.
    for (const def of this.#roster.agents) {
      if (!this.#agents.has(def.name)) {
        const previous = state.agents[def.name];
        const status = newStatus(def.name, agentDir(this.root, def));
        if (previous) {
          status.last_exit = previous.last_exit;
          status.port = previous.port;
        }
        this.#agents.set(def.name, { status, def });
      }
    }
  }

  /** One sweep. */
  async sweep(): Promise<void> {
    if (this.#shuttingDown) return;
    await this.#reloadRoster();
    const consumed = await this.#takeRequests();
    await this.#checkAdopted();
    const now = Date.now();
    const wanted = new Set<string>();
    for (const def of this.#roster.agents) {
      wanted.add(def.name);
      let live = this.#agents.get(def.name);
      if (!live) {
        live = { status: newStatus(def.name, agentDir(this.root, def)) };
        this.#agents.set(def.name, live);
      }
      live.def = def;
      this.#reconcile(live, now);
    }
    for (const [name, live] of this.#agents) {
      if (wanted.has(name) || live.task) continue;
      if (live.status.pid !== null) this.#stop(live, "remove");
      else this.#agents.delete(name);
    }
    await this.#probe();
    await this.#rotateLogs();
    await this.#writeState(consumed);
  }

  /** Sweeps every `sweepMs` until `signal` aborts, then stops every agent. */
  async run(signal: AbortSignal): Promise<void> {
    await this.start();
    this.#log(
      `svc fleet: supervising ${this.#roster.agents.length} agents of ${this.root} (pid ${Deno.pid})`,
    );
    while (!signal.aborted) {
      try {
        await this.sweep();
      } catch (err) {
        this.#log(`svc fleet: sweep failed: ${(err as Error).message}`);
      }
      await sleep(this.tuning.sweepMs / 1000, signal);
    }
    await this.shutdown();
  }

  /** Stops every agent (SIGINT, SIGKILL after the grace period) and records them stopped. */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    await Promise.all([...this.#agents.values()].map((live) => live.task));
    await Promise.all(
      [...this.#agents.values()].map((live) =>
        live.status.pid !== null ? this.#stop(live, "down") : undefined
      ),
    );
    for (const live of this.#agents.values()) {
      const s = live.status;
      if (s.state !== "disabled" && s.state !== "crashed") s.state = "stopped";
      s.next_retry_at = null;
    }
    await updateState(this.root, (state) => {
      state.supervisor = null;
      state.updated_at = new Date().toISOString();
      state.agents = Object.fromEntries(this.statuses().map((s) => [s.name, s]));
    });
    this.#log(`svc fleet: stopped; no agent of ${this.root} is running`);
  }

  async #reloadRoster(): Promise<void> {
    try {
      this.#roster = await loadRoster(this.root);
      if (this.#rosterProblem) this.#log("svc fleet: the roster is valid again");
      this.#rosterProblem = undefined;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.#rosterProblem) {
        this.#log(`svc fleet: ${message}; keeping the last valid roster`);
      }
      this.#rosterProblem = message;
    }
  }

  /** Restart requests left by `fleet restart`: reset the counters and relaunch. */
  async #takeRequests(): Promise<Set<string>> {
    const consumed = new Set<string>();
    const { state } = await readState(this.root);
    for (const request of state.requests) {
      consumed.add(requestKey(request));
      const targets = request.agent === "all"
        ? [...this.#agents.values()]
        : [this.#agents.get(request.agent)].filter((l): l is Live => l !== undefined);
      for (const live of targets) {
        if (live.task || live.def?.enabled === false) continue;
        resetCounters(live.status);
        this.#note(live, "restart requested");
        if (live.status.pid !== null) this.#stop(live, "restart");
        else live.status.state = "stopped";
      }
    }
    return consumed;
  }

  /** Adopted agents have no exit event: a pid gone (or reused) means the agent exited. */
  async #checkAdopted(): Promise<void> {
    const adopted = [...this.#agents.values()].filter((live) =>
      !live.exited && !live.task && live.status.pid !== null
    );
    if (adopted.length === 0) return;
    const alive = await startTimes(adopted.map((live) => live.status.pid!));
    for (const live of adopted) {
      const s = live.status;
      if (alive.get(s.pid!) === s.start_time) continue;
      this.#exited(live, s.pid!, { code: null, signal: null });
    }
  }

  #reconcile(live: Live, now: number): void {
    if (live.task) return;
    const def = live.def!;
    const s = live.status;
    s.dir = agentDir(this.root, def);
    if (!def.enabled) {
      if (s.pid !== null) this.#stop(live, "disable");
      else if (s.state !== "disabled") {
        s.state = "disabled";
        s.health = "unknown";
        s.next_retry_at = null;
        this.#note(live, "disabled");
      }
      return;
    }
    if (s.state === "disabled") {
      resetCounters(s);
      s.state = "stopped";
      this.#note(live, "enabled");
    }
    if (s.pid !== null && live.spawnedWith !== spawnKey(this.root, def)) {
      this.#note(live, "roster entry changed; restarting");
      this.#stop(live, "edited");
      return;
    }
    if (s.state === "stopped") this.#launch(live);
    else if (s.state === "backoff" && s.next_retry_at && Date.parse(s.next_retry_at) <= now) {
      this.#launch(live);
    }
  }

  #launch(live: Live): void {
    live.task = this.#doLaunch(live).catch((err) => {
      this.#failure(live, (err as Error).message);
    }).finally(() => {
      live.task = undefined;
    });
  }

  async #doLaunch(live: Live): Promise<void> {
    const def = live.def!;
    const s = live.status;
    const dir = agentDir(this.root, def);
    const info = await Deno.stat(dir).catch(() => undefined);
    if (!info?.isDirectory) {
      this.#failure(live, `the agent folder ${dir} does not exist`);
      return;
    }
    let port: number;
    try {
      port = allocatePort(
        this.tuning.ports,
        [def.prefer_port, s.port ?? undefined],
        this.#taken(live),
      );
    } catch (err) {
      if (!(err instanceof PortsExhaustedError)) throw err;
      // Not the agent's fault: retried with backoff, not counted as a restart.
      s.backoff_failures++;
      this.#wait(live, err.message);
      return;
    }
    s.port = port; // reserved against the other launches of this sweep
    const logPath = agentLogPath(this.root, def);
    const line = def.command
      ? { command: def.command[0], args: def.command.slice(1) }
      : svcCommand(["serve", "--host", "127.0.0.1", "--port", String(port), "--path", dir]);
    await logLine(logPath, `starting on port ${port}: ${[line.command, ...line.args].join(" ")}`);
    const fd = await openLogFd(logPath);
    let spawned;
    try {
      spawned = await spawnAgent(line, {
        cwd: dir,
        env: {
          ...this.#env,
          SVC_FLEET_PORT: String(port),
          SVC_FLEET_DIR: dir,
          SVC_FLEET_AGENT: def.name,
        },
        logFd: fd,
      });
    } finally {
      closeLogFd(fd);
    }
    Object.assign(
      s,
      {
        state: "starting",
        health: "unknown",
        pid: spawned.pid,
        start_time: spawned.start,
        port,
        probe_failures: 0,
        started_at: new Date().toISOString(),
        healthy_since: null,
        next_retry_at: null,
      } satisfies Partial<AgentStatus>,
    );
    live.exited = spawned.exited;
    live.spawnedWith = spawnKey(this.root, def);
    live.stopReason = undefined;
    this.#log(`svc fleet: ${def.name}: started pid ${spawned.pid} on port ${port}`);
    spawned.exited.then((exit) => this.#exited(live, spawned.pid, exit));
  }

  /** Ports other agents hold (running, starting, stopping, or being launched right now). */
  #taken(except: Live): Set<number> {
    const taken = new Set<number>();
    for (const live of this.#agents.values()) {
      const holds = live.status.pid !== null || live.task !== undefined;
      if (live !== except && live.status.port !== null && holds) {
        taken.add(live.status.port);
      }
    }
    return taken;
  }

  #exited(live: Live, pid: number, exit: ExitInfo): void {
    const s = live.status;
    if (s.pid !== pid) return;
    s.pid = null;
    s.start_time = null;
    s.health = "unknown";
    s.last_exit = { ...exit, at: new Date().toISOString() };
    if (live.stopReason) return; // #stop finishes the job
    // What the agent left in its group goes with it (a wrapper's child would keep serving on the
    // port). Only for a child of this process, reaped just now: while any process of the group
    // lives, its id names no other group.
    if (live.exited) signalGroup(pid, "SIGKILL");
    const how = live.exited ? describeExit(exit) : "exited (adopted; its exit status is unknown)";
    this.#failure(live, how);
  }

  /** A failure: respawn after backoff, or crashed past max_restarts. */
  #failure(live: Live, reason: string): void {
    const s = live.status;
    const max = live.def?.max_restarts ?? 0;
    s.last_error = reason;
    s.health = "unknown";
    s.backoff_failures++;
    if (max !== 0 && s.restarts >= max) {
      s.state = "crashed";
      s.next_retry_at = null;
      this.#note(
        live,
        `crashed: ${reason}; ${max} restarts used, left alone until svc fleet restart ${s.name}`,
      );
      return;
    }
    s.restarts++;
    this.#wait(live, reason);
  }

  #wait(live: Live, reason: string): void {
    const s = live.status;
    const delay = backoffDelay(s.backoff_failures, this.tuning);
    s.last_error = reason;
    s.state = "backoff";
    s.next_retry_at = new Date(Date.now() + delay).toISOString();
    this.#note(live, `${reason}; retrying in ${delay / 1000} s`);
  }

  #stop(live: Live, reason: StopReason, failure?: string): Promise<void> {
    const s = live.status;
    live.stopReason = reason;
    s.state = "stopping";
    const pid = s.pid!;
    const task = (async () => {
      const how = await stopGroup(pid, s.start_time, this.tuning.graceMs, live.exited);
      if (s.pid === pid) this.#exited(live, pid, { code: null, signal: null });
      const killed = how === "killed" ? ` with SIGKILL after ${this.tuning.graceMs / 1000} s` : "";
      this.#note(live, `stopped (${failure ?? reasonText[reason]})${killed}`);
      live.stopReason = undefined;
      live.exited = undefined;
      s.probe_failures = 0;
      s.healthy_since = null;
      if (reason === "failure") this.#failure(live, failure ?? "failed");
      else if (reason === "disable") s.state = "disabled";
      else if (reason === "remove") this.#agents.delete(s.name);
      else s.state = "stopped";
    })().finally(() => {
      live.task = undefined;
    });
    live.task = task;
    return task;
  }

  async #probe(): Promise<void> {
    const probing = [...this.#agents.values()].filter((live) =>
      !live.task && live.status.port !== null && live.status.pid !== null &&
      (live.status.state === "starting" || live.status.state === "running")
    );
    const results = await Promise.all(
      probing.map((live) => probeHealth(live.status.port!, this.tuning.healthTimeoutMs)),
    );
    const now = Date.now();
    probing.forEach((live, index) => {
      if (live.task || live.status.pid === null) return; // exited meanwhile
      const s = live.status;
      const result = results[index];
      if (result.ok) {
        if (s.state === "starting") {
          this.#log(`svc fleet: ${s.name}: healthy on port ${s.port}`);
          s.healthy_since = new Date(now).toISOString();
        }
        s.state = "running";
        s.health = "healthy";
        s.probe_failures = 0;
        if (s.healthy_since && now - Date.parse(s.healthy_since) >= this.tuning.backoffMaxMs) {
          s.backoff_failures = 0; // stable again: the next failure waits the first delay
        }
        return;
      }
      if (s.state === "starting") {
        const started = Date.parse(s.started_at ?? "") || now;
        if (now - started >= this.tuning.startTimeoutMs) {
          const limit = this.tuning.startTimeoutMs / 1000;
          this.#stop(live, "failure", `did not answer /health within ${limit} s of starting`);
        }
        return;
      }
      s.probe_failures++;
      s.health = "unhealthy";
      s.last_error = result.reason;
      if (s.probe_failures >= this.tuning.unhealthyThreshold) {
        this.#stop(
          live,
          "failure",
          `${s.probe_failures} consecutive health probes failed (${result.reason})`,
        );
      }
    });
  }

  async #rotateLogs(): Promise<void> {
    for (const live of this.#agents.values()) {
      if (!live.def) continue;
      const path = agentLogPath(this.root, live.def);
      try {
        if (await rotateIfLarge(path, this.tuning.logMaxBytes)) {
          await logLine(path, `log rotated (over ${this.tuning.logMaxBytes} bytes)`);
        }
      } catch (err) {
        this.#log(
          `svc fleet: ${live.status.name}: cannot rotate ${path}: ${(err as Error).message}`,
        );
      }
    }
  }

  async #writeState(consumed: Set<string>): Promise<void> {
    const agents = Object.fromEntries(this.statuses().map((s) => [s.name, s]));
    const text = JSON.stringify(agents);
    if (text === this.#written && consumed.size === 0) return;
    await updateState(this.root, (state) => {
      state.supervisor = { pid: Deno.pid, started_at: this.#startedAt };
      state.updated_at = new Date().toISOString();
      state.agents = agents;
      state.requests = state.requests.filter((r) => !consumed.has(requestKey(r)));
    });
    this.#written = text;
  }

  /** A line in the supervisor's output and in the agent's log. */
  #note(live: Live, text: string): void {
    this.#log(`svc fleet: ${live.status.name}: ${text}`);
    if (live.def) logLine(agentLogPath(this.root, live.def), text);
  }
}

const reasonText: Record<StopReason, string> = {
  disable: "disabled in the roster",
  down: "fleet down",
  restart: "fleet restart",
  edited: "roster entry changed",
  remove: "removed from the roster",
  failure: "failed",
};

function resetCounters(s: AgentStatus): void {
  s.restarts = 0;
  s.backoff_failures = 0;
  s.next_retry_at = null;
  s.last_error = null;
}

function requestKey(request: { agent: string; at: string }): string {
  return `${request.agent}\0${request.at}`;
}

/** What a running process was started from: a change restarts it. */
function spawnKey(root: string, def: AgentDef): string {
  return JSON.stringify([agentDir(root, def), def.command ?? null, def.prefer_port ?? null]);
}

function describeExit(exit: ExitInfo): string {
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
