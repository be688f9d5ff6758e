/**
 * The supervisor: one per roster. Every sweep (2 s) it rereads the roster, takes the requests
 * other commands left in the state file, starts what should run (port by bind probe, prefer_port
 * first), probes `GET /health` of what runs, applies the restart policy (backoff 5 s doubling to
 * 60 s; crashed past max_restarts), stops what was disabled, removed or edited, rotates logs and
 * writes the state file when it changed. Agent exits are seen at once through the child's exit
 * (or, for agents adopted from an earlier supervisor, by their pid and start time each sweep).
 * Time (a `Clock`), the processes, `/health` and the port probe are parameters (seams.ts): real by
 * default.
 */
import { type Clock, realClock } from "../util/time.ts";
import {
  agentEnv,
  applyProbe,
  childBaseEnv,
  countFailure,
  describeExit,
  initialAgents,
  launchLine,
  type Live,
  reasonText,
  requestKey,
  resetCounters,
  spawnKey,
  type StopReason,
  takenPorts,
} from "./agent.ts";
import { closeLogFd, logLine, openLogFd, rotateAgentLog } from "./logs.ts";
import { allocatePort, PortsExhaustedError } from "./ports.ts";
import type { ExitInfo } from "./process.ts";
import { agentDir, agentLogPath, loadRoster, type Roster } from "./roster.ts";
import {
  type AgentProcesses,
  type HealthProber,
  type PortProbe,
  realPortProbe,
  realProber,
  realProcesses,
} from "./seams.ts";
import { type AgentStatus, newStatus, readState, updateState } from "./state.ts";
import { backoffDelay, type FleetTuning } from "./tuning.ts";

export { childBaseEnv } from "./agent.ts";

/** How a supervisor runs. */
export interface SupervisorOptions {
  root: string;
  tuning: FleetTuning;
  /** The environment agents start from (the supervisor's own, by default). */
  env?: Record<string, string>;
  /** The supervisor's own output (a line per event). */
  log?: (line: string) => void;
  /** Time (real by default; tests pass a fake one). */
  clock?: Clock;
  /** Agent processes (real by default). */
  processes?: AgentProcesses;
  /** The `GET /health` probe (real by default). */
  probe?: HealthProber;
  /** Whether a port can be bound (a bind probe by default). */
  portFree?: PortProbe;
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
  #startedAt: string;
  #shuttingDown = false;
  /** Agent log lines being written. */
  #notes = new Set<Promise<void>>();
  #clock: Clock;
  #processes: AgentProcesses;
  #probeHealth: HealthProber;
  #portFree: PortProbe;

  constructor(options: SupervisorOptions) {
    this.root = options.root;
    this.tuning = options.tuning;
    this.#env = childBaseEnv(options.env ?? Deno.env.toObject());
    this.#log = options.log ?? ((line) => console.error(line));
    this.#clock = options.clock ?? realClock;
    this.#processes = options.processes ?? realProcesses;
    this.#probeHealth = options.probe ?? realProber;
    this.#portFree = options.portFree ?? realPortProbe;
    this.#startedAt = this.#iso();
  }

  /** The clock's now as an ISO timestamp. */
  #iso(): string {
    return new Date(this.#clock.now()).toISOString();
  }

  /** Resolves once no launch, stop or log note a sweep left running in the background is left. */
  async settled(): Promise<void> {
    const busy = () => [...this.#agents.values()].some((live) => live.task) || this.#notes.size;
    while (busy()) {
      await Promise.all([...this.#agents.values()].map((live) => live.task));
      await Promise.all(this.#notes);
    }
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
    const pids = Object.values(state.agents).flatMap((s) => (s.pid ? [s.pid] : []));
    const alive = await this.#processes.startTimes(pids);
    this.#agents = initialAgents(this.root, { roster: this.#roster, state, alive });
    for (const { status, exited } of this.#agents.values()) {
      if (status.pid === null || exited) continue;
      this.#log(`svc fleet: ${status.name}: adopted pid ${status.pid} on port ${status.port}`);
    }
  }

  /** One sweep. */
  async sweep(): Promise<void> {
    if (this.#shuttingDown) return;
    await this.#reloadRoster();
    const consumed = await this.#takeRequests();
    await this.#checkAdopted();
    const now = this.#clock.now();
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
    for (const { def } of this.#agents.values()) {
      if (!def) continue;
      const path = agentLogPath(this.root, def);
      await rotateAgentLog(def.name, { path, maxBytes: this.tuning.logMaxBytes, log: this.#log });
    }
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
      await this.#clock.sleep(this.tuning.sweepMs, signal, "sweep");
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
      state.updated_at = this.#iso();
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
    const alive = await this.#processes.startTimes(adopted.map((live) => live.status.pid!));
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
      port = allocatePort(this.tuning.ports, {
        prefer: [def.prefer_port, s.port ?? undefined],
        taken: takenPorts(this.#agents.values(), live),
        probe: this.#portFree,
      });
    } catch (err) {
      if (!(err instanceof PortsExhaustedError)) throw err;
      // Not the agent's fault: retried with backoff, not counted as a restart.
      s.backoff_failures++;
      this.#wait(live, err.message);
      return;
    }
    s.port = port; // reserved against the other launches of this sweep
    const logPath = agentLogPath(this.root, def);
    const line = launchLine(def, { port, dir });
    await logLine(logPath, `starting on port ${port}: ${[line.command, ...line.args].join(" ")}`);
    const fd = await openLogFd(logPath);
    let spawned;
    try {
      const env = agentEnv(this.#env, { name: def.name, port, dir });
      spawned = await this.#processes.spawn(line, { cwd: dir, env, logFd: fd });
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
        started_at: this.#iso(),
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

  #exited(live: Live, pid: number, exit: ExitInfo): void {
    const s = live.status;
    if (s.pid !== pid) return;
    s.pid = null;
    s.start_time = null;
    s.health = "unknown";
    s.last_exit = { ...exit, at: this.#iso() };
    if (live.stopReason) return; // #stop finishes the job
    // What the agent left in its group goes with it (a wrapper's child would keep serving on the
    // port). Only for a child of this process, reaped just now: while any process of the group
    // lives, its id names no other group.
    if (live.exited) this.#processes.killGroup(pid);
    const how = live.exited ? describeExit(exit) : "exited (adopted; its exit status is unknown)";
    this.#failure(live, how);
  }

  /** A failure: respawn after backoff, or crashed past max_restarts. */
  #failure(live: Live, reason: string): void {
    const max = live.def?.max_restarts ?? 0;
    if (!countFailure(live.status, { reason, max })) return this.#wait(live, reason);
    const name = live.status.name;
    this.#note(
      live,
      `crashed: ${reason}; ${max} restarts used, left alone until svc fleet restart ${name}`,
    );
  }

  #wait(live: Live, reason: string): void {
    const s = live.status;
    const delay = backoffDelay(s.backoff_failures, this.tuning);
    s.last_error = reason;
    s.state = "backoff";
    s.next_retry_at = new Date(this.#clock.now() + delay).toISOString();
    this.#note(live, `${reason}; retrying in ${delay / 1000} s`);
  }

  #stop(live: Live, reason: StopReason, failure?: string): Promise<void> {
    const s = live.status;
    live.stopReason = reason;
    s.state = "stopping";
    const pid = s.pid!;
    const task = (async () => {
      const how = await this.#processes.stop(pid, {
        start: s.start_time,
        graceMs: this.tuning.graceMs,
        exited: live.exited,
      });
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
      probing.map((live) => this.#probeHealth(live.status.port!, this.tuning.healthTimeoutMs)),
    );
    const now = this.#clock.now();
    probing.forEach((live, index) => {
      if (live.task || live.status.pid === null) return; // exited meanwhile
      const s = live.status;
      const outcome = applyProbe(s, { result: results[index], now, tuning: this.tuning });
      if (outcome === "healthy") this.#log(`svc fleet: ${s.name}: healthy on port ${s.port}`);
      else if (outcome) this.#stop(live, "failure", outcome.failure);
    });
  }

  async #writeState(consumed: Set<string>): Promise<void> {
    const agents = Object.fromEntries(this.statuses().map((s) => [s.name, s]));
    const text = JSON.stringify(agents);
    if (text === this.#written && consumed.size === 0) return;
    await updateState(this.root, (state) => {
      state.supervisor = { pid: Deno.pid, started_at: this.#startedAt };
      state.updated_at = this.#iso();
      state.agents = agents;
      state.requests = state.requests.filter((r) => !consumed.has(requestKey(r)));
    });
    this.#written = text;
  }

  /** A line in the supervisor's output and in the agent's log. */
  #note(live: Live, text: string): void {
    this.#log(`svc fleet: ${live.status.name}: ${text}`);
    if (!live.def) return;
    const written = logLine(agentLogPath(this.root, live.def), text).finally(() => {
      this.#notes.delete(written);
    });
    this.#notes.add(written);
  }
}
