/**
 * `svc fleet` at scale: 50 real `svc serve` agents from `svc fleet up --detach` to all healthy
 * (wall time), their memory once idle (total RSS and each agent's), the supervisor's own CPU over
 * a window with every agent healthy (target: under 2% of one core), and `svc fleet down`.
 * Arguments: `--agents N` (default 50), `--cpu-seconds S` (default 60; shorter for quick runs),
 * `--ports first-last` (default 8780-8890), `--installed` (the fleet of a temporary `deno task
 * install` of this checkout, whose agents run through its launcher as a user's do, instead of the
 * source tree). The supervisor runs with SPEC's timings (sweep 2 s, health timeout 2 s). Linux
 * only: RSS and CPU come from /proc.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { SVC_PERMISSIONS } from "../../src/launch/svc_command.ts";
import { installTemporarySvc, listeningUrl, MAIN, median, report, timeProcess } from "./_util.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    agents: { type: "string", default: "50" },
    "cpu-seconds": { type: "string", default: "60" },
    ports: { type: "string", default: "8780-8890" },
    installed: { type: "boolean", default: false },
  },
});
const AGENTS = Number(values.agents);
const CPU_SECONDS = Number(values["cpu-seconds"]);
const TICKS = 100; // USER_HZ on Linux

const cwd = await Deno.makeTempDir({ prefix: "svc-bench-fleet-calibration-" });
await Deno.writeTextFile(`${cwd}/empty.ts`, "");
const floor = [];
for (let i = 0; i < 5; i++) {
  floor.push(await timeProcess([Deno.execPath(), "run", "--quiet", `${cwd}/empty.ts`]));
}
await Deno.remove(cwd, { recursive: true });
report("calibration: deno run of an empty script", floor.map((s) => s.wall));
report("calibration: its peak RSS", floor.map((s) => s.rssKb / 1024), "MiB");

const home = await Deno.makeTempDir({ prefix: "svc-bench-fleet-home-" });
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-bench-fleet-" }));
const names = Array.from({ length: AGENTS }, (_, i) => `agent-${String(i + 1).padStart(2, "0")}`);
for (const name of names) {
  await Deno.mkdir(join(root, name, ".svc"), { recursive: true });
  await Deno.writeTextFile(
    join(root, name, ".svc", "config.json"),
    JSON.stringify({ base_url: "http://127.0.0.1:9", model: "m" }),
  );
}
const env = { HOME: home, NO_COLOR: "1", SVC_FLEET_PORT_RANGE: values.ports! };

const installed = values.installed ? await installTemporarySvc() : null;
async function svc(args: string[]): Promise<string> {
  const out = await new Deno.Command(installed?.bin ?? Deno.execPath(), {
    args: installed ? args : ["run", ...SVC_PERMISSIONS, "--quiet", MAIN, ...args],
    cwd: root,
    env,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`svc ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

interface Agent {
  pid: number | null;
  state: string;
  health: string;
}
async function state(): Promise<
  { supervisor: { pid: number } | null; agents: Record<string, Agent> }
> {
  try {
    return JSON.parse(await Deno.readTextFile(join(root, ".svc", "fleet.state.json")));
  } catch {
    return { supervisor: null, agents: {} };
  }
}

function rssKb(pid: number): number {
  try {
    const line = Deno.readTextFileSync(`/proc/${pid}/status`).split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return Number(line?.split(/\s+/)[1] ?? 0);
  } catch {
    return 0;
  }
}

/** RSS of every process in the group `pgid` (an agent and anything it started). */
function groupRssKb(pgid: number): number {
  let total = 0;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid) {
        total += rssKb(Number(entry.name));
      }
    } catch {
      // gone
    }
  }
  return total;
}

function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
}

/**
 * One `svc serve` over the first agent's folder until it listens: a first start in a new HOME
 * validates the config and the manifests (loading zod) and remembers them
 * (src/launch/start_memo.ts); a user's agents start with them remembered.
 */
async function warmUp(): Promise<void> {
  const child = new Deno.Command(installed?.bin ?? Deno.execPath(), {
    args: [
      ...(installed ? [] : ["run", ...SVC_PERMISSIONS, "--quiet", MAIN]),
      ...["serve", "--port", "0", "--no-auth", "--path", join(root, names[0])],
    ],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  await listeningUrl(child.stderr);
  child.kill("SIGTERM");
  await child.status;
}

try {
  await warmUp();
  await svc(["fleet", "init", "--no-trust"]);
  const start = performance.now();
  await svc(["fleet", "up", "--detach"]);
  const detached = performance.now() - start;
  let healthyAt = 0;
  let current = await state();
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    current = await state();
    const healthy = names.filter((n) => current.agents[n]?.health === "healthy").length;
    if (healthy === AGENTS) {
      healthyAt = performance.now() - start;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!healthyAt) throw new Error(`not every agent became healthy: ${JSON.stringify(current)}`);
  report("fleet up --detach returns", [detached]);
  report(`fleet up --detach to ${AGENTS} agents healthy`, [healthyAt]);

  // Idle memory: a few seconds after the last start, so start-up garbage is collected.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const pids = names.map((n) => current.agents[n].pid!);
  const each = pids.map((pid) => groupRssKb(pid) / 1024);
  const supervisor = current.supervisor!.pid;
  report(`total RSS of ${AGENTS} idle agents`, [each.reduce((a, b) => a + b, 0)], "MiB");
  report("RSS of one idle agent", each, "MiB");
  report("RSS of the supervisor", [rssKb(supervisor) / 1024], "MiB");

  const before = cpuTicks(supervisor);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, CPU_SECONDS * 1000));
  const seconds = (performance.now() - t0) / 1000;
  const used = (cpuTicks(supervisor) - before) / TICKS;
  const percent = (100 * used) / seconds;
  console.log(
    `${`supervisor CPU, ${AGENTS} healthy agents, ${seconds.toFixed(0)} s`.padEnd(44)} ` +
      `${percent.toFixed(2)} % of one core (${(used * 1000).toFixed(0)} ms)  target < 2 %`,
  );
  const still = await state();
  const unhealthy = names.filter((n) => still.agents[n]?.health !== "healthy");
  if (unhealthy.length) console.log(`not healthy at the end: ${unhealthy.join(", ")}`);

  const downStart = performance.now();
  await svc(["fleet", "down"]);
  report(`fleet down with ${AGENTS} agents`, [performance.now() - downStart]);
  const left = pids.filter((pid) => {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  });
  console.log(
    `agents alive after down: ${left.length}; median agent RSS ${median(each).toFixed(0)} MiB`,
  );
} finally {
  await svc(["fleet", "down"]).catch(() => {});
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await installed?.remove();
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
