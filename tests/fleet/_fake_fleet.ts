/**
 * The supervisor in-process on fake time (DESIGN 6): a real roster and state file in a temp root,
 * with a fake clock, fake agent processes (started, stopped, crashed by the test, each answering
 * `/health` as the test says) and a fake port probe. Each `sweep()` runs one sweep and waits for
 * the launches and stops it started.
 */
import { join } from "node:path";
import type { CommandLine } from "../../src/launch/svc_command.ts";
import type { ProbeResult } from "../../src/fleet/health.ts";
import type { ExitInfo, SpawnedAgent } from "../../src/fleet/process.ts";
import type { AgentProcesses } from "../../src/fleet/seams.ts";
import { updateState } from "../../src/fleet/state.ts";
import {
  type AgentStatus,
  DEFAULT_TUNING,
  type FleetTuning,
  Supervisor,
} from "../../src/fleet/mod.ts";
import { FakeClock } from "../_support/fake_clock.ts";

/** One fake agent process. */
export interface FakeAgent {
  pid: number;
  start: string;
  line: CommandLine;
  cwd: string;
  env: Record<string, string>;
  port: number;
  /** What `/health` answers while it runs. */
  health: ProbeResult;
  alive: boolean;
  /** Its supervisor is gone (killed): its exit reaches no one. */
  orphaned: boolean;
  /** The signal the supervisor stopped it with, if it did. */
  stoppedBy?: "SIGINT";
  exit(info: ExitInfo): Promise<void>;
}

/** Agent processes that exist only in this test: pids from 4000 up, start times "t<pid>". */
export class FakeProcesses implements AgentProcesses {
  agents: FakeAgent[] = [];
  killedGroups: number[] = [];
  #resolvers = new Map<number, (info: ExitInfo) => void>();
  #exits = new Map<number, Promise<ExitInfo>>();

  spawn(
    line: CommandLine,
    options: { cwd: string; env: Record<string, string>; logFd: number },
  ): Promise<SpawnedAgent> {
    const pid = 4000 + this.agents.length;
    const exited = new Promise<ExitInfo>((resolve) => this.#resolvers.set(pid, resolve));
    this.#exits.set(pid, exited);
    const agent: FakeAgent = {
      pid,
      start: `t${pid}`,
      line,
      cwd: options.cwd,
      env: options.env,
      port: Number(options.env.SVC_FLEET_PORT),
      health: { ok: true },
      alive: true,
      orphaned: false,
      exit: async (info) => {
        if (!agent.alive) return;
        agent.alive = false;
        if (agent.orphaned) return;
        this.#resolvers.get(pid)!(info);
        await exited; // the supervisor's exit handler ran first (registered before)
      },
    };
    this.agents.push(agent);
    return Promise.resolve({ pid, start: agent.start, exited });
  }

  /** Whichever fake agent `pid` is: SIGINT ends it at once with code 0. */
  async stop(
    pid: number,
    { start }: { start: string | null },
  ): Promise<"gone" | "stopped" | "killed"> {
    const agent = this.byPid(pid);
    if (!agent?.alive || agent.start !== start) return "gone";
    agent.stoppedBy = "SIGINT";
    await agent.exit({ code: 0, signal: null });
    return "stopped";
  }

  startTimes(pids: readonly number[]): Promise<Map<number, string>> {
    const alive = this.agents.filter((a) => a.alive && pids.includes(a.pid));
    return Promise.resolve(new Map(alive.map((a) => [a.pid, a.start])));
  }

  killGroup(pid: number): void {
    this.killedGroups.push(pid);
  }

  /** `GET /health` on `port`: what the live agent there answers, else refused. */
  probe = (port: number): Promise<ProbeResult> => {
    const agent = this.agents.find((a) => a.alive && a.port === port);
    return Promise.resolve(
      agent?.health ?? { ok: false, reason: "/health failed: Connection refused" },
    );
  };

  byPid(pid: number | null): FakeAgent | undefined {
    return this.agents.find((a) => a.pid === pid);
  }

  /** The live agent started for `name`. */
  of(name: string): FakeAgent {
    const agent = this.agents.findLast((a) => a.alive && a.env.SVC_FLEET_AGENT === name);
    if (!agent) throw new Error(`no live agent ${name}`);
    return agent;
  }

  /** How many processes were started for `name`. */
  starts(name: string): number {
    return this.agents.filter((a) => a.env.SVC_FLEET_AGENT === name).length;
  }
}

/** A roster entry as written in fleet.json. */
export interface RosterEntry {
  name: string;
  enabled?: boolean;
  max_restarts?: number;
  prefer_port?: number;
  command?: string[];
}

export interface FakeFleet {
  root: string;
  clock: FakeClock;
  processes: FakeProcesses;
  /** Ports something else holds (the fake bind probe fails on them). */
  busy: Set<number>;
  /** Every supervisor of this root so far, the current one last. */
  supervisors: Supervisor[];
  /** The supervisor's output lines. */
  lines: string[];
  supervisor: Supervisor;
  tuning: FleetTuning;
  /**
   * The supervisor is killed (its agents live on, their exits reach no one) and a new one of the
   * same root, processes and clock starts (a second `fleet up`).
   */
  restartSupervisor(): Promise<void>;
  /** One sweep, then whatever it started in the background. */
  sweep(): Promise<void>;
  /** Moves the clock and sweeps. */
  after(ms: number): Promise<void>;
  status(name: string): AgentStatus;
  /** Rewrites the roster (the next sweep sees it). */
  roster(entries: RosterEntry[]): Promise<void>;
  /** Leaves a `fleet restart` request in the state file. */
  requestRestart(agent: string): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A fake-time fleet over `entries` (a folder each), started (adoption done, nothing swept). */
export async function fakeFleet(
  entries: RosterEntry[],
  tuning: Partial<FleetTuning> = {},
): Promise<FakeFleet> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-fake-fleet-" }));
  await Deno.mkdir(join(root, ".svc"));
  const clock = new FakeClock();
  const processes = new FakeProcesses();
  const busy = new Set<number>();
  const lines: string[] = [];
  const full: FleetTuning = {
    ...DEFAULT_TUNING,
    ports: { first: 8780, last: 8782 },
    ...tuning,
  };
  const make = () =>
    new Supervisor({
      root,
      tuning: full,
      env: { HOME: "/nonexistent", SVC_FLEET_SWEEP: "0.2" },
      log: (line) => lines.push(line),
      clock,
      processes,
      probe: processes.probe,
      portFree: (port) => !busy.has(port),
    });
  const fleet: FakeFleet = {
    root,
    clock,
    processes,
    busy,
    lines,
    supervisor: make(),
    supervisors: [],
    tuning: full,
    async restartSupervisor() {
      await fleet.supervisor.settled();
      for (const agent of processes.agents) agent.orphaned = true;
      fleet.supervisor = make();
      fleet.supervisors.push(fleet.supervisor);
      await fleet.supervisor.start();
    },
    async sweep() {
      await fleet.supervisor.sweep();
      await fleet.supervisor.settled();
    },
    async after(ms) {
      await clock.advance(ms);
      await fleet.sweep();
    },
    status(name) {
      const status = fleet.supervisor.statuses().find((s) => s.name === name);
      if (!status) throw new Error(`no agent ${name}`);
      return status;
    },
    async roster(list) {
      for (const entry of list) await Deno.mkdir(join(root, entry.name), { recursive: true });
      const agents = list.map((entry) => ({ dir: entry.name, ...entry }));
      await Deno.writeTextFile(join(root, ".svc", "fleet.json"), JSON.stringify({ agents }));
    },
    async requestRestart(agent) {
      await updateState(root, (state) => {
        state.requests.push({ agent, action: "restart", at: new Date(clock.now()).toISOString() });
      });
    },
    async [Symbol.asyncDispose]() {
      for (const supervisor of fleet.supervisors) await supervisor.settled();
      await Deno.remove(root, { recursive: true });
    },
  };
  fleet.supervisors.push(fleet.supervisor);
  await fleet.roster(entries);
  await fleet.supervisor.start();
  return fleet;
}
