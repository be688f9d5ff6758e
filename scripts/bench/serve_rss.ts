/**
 * The installed `svc serve` as users run it (the launcher, its V8 flags, no forced collection):
 * its RSS from /proc once idle (the figure a fleet agent holds), then over POST /chat turns, each
 * one file_read round against the fake provider of serve_memory.ts in its own process, sampled
 * every `--every` turns, with the server's CPU per turn; then idle again. Issue 33's targets:
 * idle under 60 MiB; after 1,500 turns under 100 MiB and within 10 MiB of the value after 300.
 * serve_memory.ts measures the same handler in-process with a gc before every sample (what svc
 * holds); this measures what the system sees.
 *
 * Options: `--turns N` (default 1500), `--every N` (default 300), `--idle S` (seconds idle before
 * each idle sample, default 3), `--bin <svc>` (an installed command to measure instead of a
 * temporary install of this checkout; repeat it to compare builds), `--rounds N` (default 1: each
 * build's series N times, the builds alternating, then medians per build).
 */
import { parseArgs } from "node:util";
import { installTemporarySvc, listeningUrl, report, startProviderProcess } from "./_util.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    turns: { type: "string", default: "1500" },
    every: { type: "string", default: "300" },
    idle: { type: "string", default: "3" },
    bin: { type: "string", multiple: true },
    rounds: { type: "string", default: "1" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(
    "Usage: deno run -A scripts/bench/serve_rss.ts [--turns N] [--every N] [--idle S] " +
      "[--rounds N] [--bin <installed svc>]...",
  );
  Deno.exit(0);
}
const TURNS = Number(values.turns);
const EVERY = Number(values.every);
const IDLE_MS = Number(values.idle) * 1000;
const TICKS = 100; // USER_HZ on Linux
const MiB = 1024;

const installed = values.bin?.length ? null : await installTemporarySvc();
const bins = values.bin?.length ? values.bin : [installed!.bin];
const provider = await startProviderProcess("./_turn_provider.ts");
interface Figures {
  idle: number[];
  at: Map<number, number[]>;
  cpu: number[];
}
const results = new Map<string, Figures>();
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const bin of bins) {
      const series = await runSeries(bin, provider.url);
      const entry: Figures = results.get(bin) ?? { idle: [], at: new Map(), cpu: [] };
      entry.idle.push(series.idle);
      for (const [turns, rss] of series.samples) {
        entry.at.set(turns, [...(entry.at.get(turns) ?? []), rss]);
      }
      entry.cpu.push(series.cpuPerTurn);
      results.set(bin, entry);
    }
  }
} finally {
  await provider.stop();
  await installed?.remove();
}
{
  for (const [bin, entry] of results) {
    console.log(`\n${bin}`);
    report("idle RSS", entry.idle, "MiB", "< 60 MiB");
    for (const [turns, rss] of entry.at) report(`RSS after ${turns} turns`, rss, "MiB");
    report("server CPU per turn", entry.cpu);
  }
}

/** One server over a fresh worktree and HOME: idle sample, the turns, idle sample. */
async function runSeries(bin: string, providerUrl: string) {
  const home = await Deno.makeTempDir({ prefix: "svc-bench-rss-home-" });
  // Not on /dev/shm as serve_memory.ts: Deno asks for all permissions to open paths under /dev.
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-bench-rss-" }));
  await Deno.writeTextFile(`${cwd}/notes.txt`, "The secret word is PAPAYA.\n");
  await Deno.mkdir(`${cwd}/.svc`);
  await Deno.writeTextFile(
    `${cwd}/.svc/config.json`,
    JSON.stringify({ base_url: providerUrl, model: "m" }),
  );
  const serve = () =>
    new Deno.Command(bin, {
      args: ["serve", "--port", "0", "--no-auth"],
      cwd,
      env: { HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
  // A first start in a new HOME validates the config and the manifests (loading zod) and
  // remembers them (src/launch/start_memo.ts); a user's server or fleet agent starts with them
  // remembered, so the measured server is the second.
  const first = serve();
  await listeningUrl(first.stderr);
  first.kill("SIGTERM");
  await first.status;
  const child = serve();
  try {
    const url = await listeningUrl(child.stderr);
    console.log(`\n${bin}: ${TURNS} turns over HTTP, worktree ${cwd}`);
    await sleep(IDLE_MS);
    const idle = rssKb(child.pid) / MiB;
    console.log(`  idle ${values.idle} s after listening: RSS ${idle.toFixed(1)} MiB`);
    console.log("  turns   RSS MiB  ms/turn  server CPU ms/turn");
    const samples = await turns(url, child.pid);
    const cpuPerTurn = samples.reduce((sum, s) => sum + s.cpu, 0) / samples.length;
    await sleep(IDLE_MS);
    console.log(
      `  idle ${values.idle} s after the turns: RSS ${(rssKb(child.pid) / MiB).toFixed(1)} MiB`,
    );
    return { idle, samples: samples.map((s) => [s.turns, s.rss] as const), cpuPerTurn };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

/** The turns, one at a time, sampling RSS and CPU every EVERY turns. */
async function turns(url: string, pid: number) {
  const samples: Array<{ turns: number; rss: number; cpu: number }> = [];
  let last = performance.now();
  let lastTicks = cpuTicks(pid);
  for (let i = 1; i <= TURNS; i++) {
    const response = await fetch(`${url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: `Read notes.txt and tell me what it holds (turn ${i})` }),
    });
    const result = await response.json();
    if (response.status !== 200 || result.tool_calls?.length !== 1 || !result.tool_calls[0].ok) {
      throw new Error(`turn ${i}: HTTP ${response.status} ${JSON.stringify(result).slice(0, 300)}`);
    }
    if (i % EVERY !== 0) continue;
    const ticks = cpuTicks(pid);
    const sample = {
      turns: i,
      rss: rssKb(pid) / MiB,
      cpu: ((ticks - lastTicks) * 1000) / TICKS / EVERY,
    };
    const ms = (performance.now() - last) / EVERY;
    console.log(
      `  ${String(i).padStart(5)}${sample.rss.toFixed(1).padStart(10)}${
        ms.toFixed(1).padStart(9)
      }` +
        `${sample.cpu.toFixed(1).padStart(20)}`,
    );
    samples.push(sample);
    last = performance.now();
    lastTicks = ticks;
  }
  return samples;
}

function rssKb(pid: number): number {
  const line = Deno.readTextFileSync(`/proc/${pid}/status`).split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? NaN);
}

function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
