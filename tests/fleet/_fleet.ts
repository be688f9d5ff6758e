/**
 * A fleet root for end-to-end tests: agent folders with a config `svc serve` starts from, a temp
 * HOME, short supervisor timings through the SVC_FLEET_* seam, and a port range of the test's
 * own (outside 8780-8890, which other suites may use).
 */
import { join } from "node:path";
import { type CliResult, spawnSvc, svc } from "../_support/cli.ts";
import type { AgentStatus, FleetState } from "../../src/fleet/state.ts";

/** A served agent needs a backend to start; nothing is sent to it in these tests. */
export const AGENT_CONFIG = JSON.stringify({ base_url: "http://127.0.0.1:9", model: "m" });

/**
 * Timings short enough for tests; the defaults are SPEC's (tests/fleet/tuning.test.ts). The
 * health timeout stays long: on a loaded machine a 1 s probe of a healthy agent can time out,
 * and two in a row restart it.
 */
export const FAST = {
  SVC_FLEET_SWEEP: "0.2",
  SVC_FLEET_HEALTH_TIMEOUT: "5",
  SVC_FLEET_BACKOFF: "1",
  SVC_FLEET_BACKOFF_MAX: "4",
  SVC_FLEET_GRACE: "5",
};

export interface TestFleet {
  home: string;
  root: string;
  env: Record<string, string>;
  /** Runs `svc <args>` in the root. */
  svc(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  spawn(args: string[]): Deno.ChildProcess;
  state(): Promise<FleetState>;
  /** Polls the state file until `test` holds for the agent (or every agent), else throws. */
  waitFor(
    what: string,
    test: (state: FleetState) => boolean,
    timeoutMs?: number,
  ): Promise<FleetState>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A root with one folder per name, each with `.svc/config.json`. */
export async function testFleet(
  agents: string[],
  ports: string,
  extraEnv: Record<string, string> = {},
): Promise<TestFleet> {
  const home = await Deno.makeTempDir({ prefix: "svc-fleet-home-" });
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-fleet-root-" }));
  for (const name of agents) {
    await Deno.mkdir(join(root, name, ".svc"), { recursive: true });
    await Deno.writeTextFile(join(root, name, ".svc", "config.json"), AGENT_CONFIG);
  }
  const env = { HOME: home, NO_COLOR: "1", ...FAST, SVC_FLEET_PORT_RANGE: ports, ...extraEnv };
  const fleet: TestFleet = {
    home,
    root,
    env,
    svc: (args, more = {}) => svc(args, { cwd: root, env: { ...env, ...more } }),
    spawn: (args) => spawnSvc(args, { cwd: root, env }),
    async state() {
      try {
        return JSON.parse(await Deno.readTextFile(join(root, ".svc", "fleet.state.json")));
      } catch {
        return { supervisor: null, updated_at: null, agents: {}, requests: [] };
      }
    },
    async waitFor(what, test, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last: FleetState | undefined;
      while (Date.now() < deadline) {
        last = await fleet.state();
        if (test(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(last, null, 2)}`);
    },
    async [Symbol.asyncDispose]() {
      // Whatever a failed test left running is stopped (by the code under test's own down).
      await svc(["fleet", "down"], { cwd: root, env }).catch(() => {});
      await Deno.remove(home, { recursive: true }).catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  return fleet;
}

/** Every named agent in `state`. */
export function agentsOf(state: FleetState, names: string[]): AgentStatus[] {
  return names.map((name) => state.agents[name]).filter((a): a is AgentStatus => Boolean(a));
}

/** Whether every named agent is running and healthy. */
export function allRunning(names: string[]) {
  return (state: FleetState) =>
    names.every((n) =>
      state.agents[n]?.state === "running" && state.agents[n]?.health === "healthy"
    );
}

/** Whether `pid` names a live process (a zombie awaiting its reaper counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Every process of the process group `pgid` that is alive (not a zombie). */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}
