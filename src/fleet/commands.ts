/**
 * What `svc fleet` runs: the roster commands (roster_commands.ts), `config` (configure.ts), the
 * supervisor commands (up, down, restart) and what reads its state (status, logs). Each takes the
 * fleet root and parsed options, prints what it did and returns the exit code.
 */
import { UsageError } from "../shared/usage_error.ts";
import { relative } from "../util/posix_path.ts";
import { delay } from "../util/time.ts";
import {
  detachSupervisor,
  FleetError,
  requestRestart,
  runSupervisor,
  stopFleet,
} from "./daemon.ts";
import { followFile, tailLines } from "./logs.ts";
import { agentsText, supervisorLine } from "./render.ts";
import { agentLogPath, fleetPaths } from "./roster.ts";
import { agentNamed } from "./roster_commands.ts";
import { readState } from "./state.ts";
import { fleetStatus } from "./status.ts";
import { type FleetTuning, tuningFromEnv } from "./tuning.ts";

export { configureAgent, type ConfigureOptions } from "./configure.ts";
export {
  addAgent,
  type AddAgentOptions,
  initRoster,
  removeAgent,
  setAgentEnabled,
} from "./roster_commands.ts";

const say = (text: string) => console.log(text);
const note = (text: string) => console.error(text);

/** The supervisor's tuning from the SVC_FLEET_* variables; a bad value is a usage error. */
function tuning(): FleetTuning {
  try {
    return tuningFromEnv((name) => Deno.env.get(name));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `fleet up [--detach]`: the supervisor in the foreground, or detached. */
export async function up(root: string, options: { detach?: boolean }): Promise<number> {
  const tuned = tuning();
  if (options.detach) {
    const { pid, log } = await detachSupervisor(root);
    say(
      `svc fleet: supervisor started in the background (pid ${pid}, log ${log}); ` +
        "svc fleet status shows the agents, svc fleet down stops them",
    );
    return 0;
  }
  await runSupervisor(root, tuned);
  return 0;
}

/** `fleet down`: the supervisor and every agent stopped. */
export async function down(root: string): Promise<number> {
  const report = await stopFleet(root, tuning());
  if (report.supervisor) say(`stopped the fleet supervisor (pid ${report.supervisor})`);
  else say(`no fleet supervisor was running for ${root}`);
  if (report.leftovers.length) {
    say(`stopped agents it had left running: ${report.leftovers.join(", ")}`);
  }
  return 0;
}

/** `fleet restart [name|all]`: resets backoff and counter and relaunches. */
export async function restart(root: string, name: string | undefined): Promise<number> {
  const target = name ?? "all";
  if (target !== "all" && !(await agentNamed(root, target)).enabled) {
    throw new FleetError(`${target} is disabled; svc fleet enable ${target} starts it`);
  }
  await requestRestart(root, target);
  const deadline = Date.now() + tuning().sweepMs * 3 + 10_000;
  while (Date.now() < deadline) {
    const { state } = await readState(root);
    if (!state.requests.some((r) => r.agent === target)) {
      say(`restarting ${target === "all" ? "every agent" : target}`);
      return 0;
    }
    await delay(100);
  }
  say(`restart of ${target} requested; the supervisor has not taken it yet`);
  return 0;
}

/** `fleet status [--json]`: the supervisor line, then a table or a JSON list of the agents. */
export async function status(root: string, options: { json?: boolean }): Promise<number> {
  const report = await fleetStatus(root);
  for (const warning of report.warnings) note(`warning: ${warning}`);
  if (options.json) {
    note(supervisorLine(report));
    say(JSON.stringify(report.agents, null, 2));
    return 0;
  }
  say(supervisorLine(report));
  say(agentsText(report.agents, { rosterPath: fleetPaths(root).roster, now: Date.now() }));
  return 0;
}

/** `fleet logs <name> [n] [-f]`: the last `lines` lines of the agent's log, then what follows. */
export async function logs(
  root: string,
  name: string,
  options: { lines: number; follow?: boolean },
): Promise<number> {
  const { lines } = options;
  const def = await agentNamed(root, name);
  const path = agentLogPath(root, def);
  let size = 0;
  try {
    size = (await Deno.stat(path)).size;
    const tail = await tailLines(path, lines);
    if (tail.length) say(tail.join("\n"));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    if (!options.follow) {
      note(`${name} has no log yet (${relative(Deno.cwd(), path) || path})`);
      return 0;
    }
  }
  if (!options.follow) return 0;
  const controller = new AbortController();
  const stop = () => controller.abort();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  const encoder = new TextEncoder();
  try {
    await followFile(path, {
      offset: size,
      write: (text) => {
        Deno.stdout.writeSync(encoder.encode(text));
      },
      signal: controller.signal,
    });
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
  }
  return 0;
}
