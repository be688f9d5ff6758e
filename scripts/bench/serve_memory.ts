/**
 * `svc serve` over time: many POST /chat turns through the real handler in one process, each
 * turn one file_read round against a fake provider in its own process. RSS and heap (after a
 * full gc) are sampled as the turns go, for three shapes:
 *   a. every request a new session;
 *   b. all requests in 4 named sessions (each conversation grows, and so does its file);
 *   c. as b, but each result is a ~100 KB file_read (a 200 KB file under the default
 *      tool_max_result_chars) whose stored copy is capped by session_tool_max_chars, so the full
 *      copy is what the process holds beside the file.
 * Each shape runs in a fresh process (this script with `--shape <a|b|c> <provider url> [turns
 * [every]]`, under --expose-gc) over a temp worktree and HOME, built by Runtime.load with the
 * bundled plugins and createServeApp, as `svc serve` builds it. A benchmark, not a test: heap
 * after gc is the figure to read; RSS also holds what the allocator has not given back.
 */
import { createServeApp } from "../../src/http/mod.ts";
import { createMcpHttpEndpoint } from "../../src/mcp/mod.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import { report, startProviderProcess, timeProcess } from "./_util.ts";

interface Shape {
  name: string;
  label: string;
  turns: number;
  every: number;
  /** Sizing note printed with the series. */
  note?: string;
}

const SHAPES: Shape[] = [
  { name: "a", label: "a. a new session per request, small result", turns: 10_000, every: 1_000 },
  {
    name: "b",
    label: "b. 4 named sessions, small result",
    turns: 2_000,
    every: 200,
    note: "not 10,000: every turn sends and rewrites its whole conversation, so turns slow " +
      "as the 4 sessions grow (25-35 ms each by turn 2,000); memory should follow the files",
  },
  {
    name: "c",
    label: "c. 4 named sessions, ~100 KB result, stored copy capped at 2,000 chars",
    turns: 400,
    every: 40,
    note: "not 10,000: each request carries the full results its session still holds (up to " +
      "16 of ~100 KB) besides the growing conversation, so a turn costs 30-100 ms here",
  },
];
const NAMED = 4;
const BASE = "http://127.0.0.1:8787";
const MiB = 1 << 20;

if (Deno.args[0] === "--shape") await runShape(Deno.args[1], Deno.args[2]);
else await main();

/** Spawns the provider, then one process per shape with --expose-gc, printing each series. */
async function main(): Promise<void> {
  const self = new URL(import.meta.url).pathname;
  const cwd = await Deno.makeTempDir({ prefix: "svc-bench-calibration-" });
  await Deno.writeTextFile(`${cwd}/empty.ts`, "");
  const floor = [];
  for (let i = 0; i < 5; i++) {
    floor.push((await timeProcess([Deno.execPath(), "run", "--quiet", `${cwd}/empty.ts`])).rssKb);
  }
  await Deno.remove(cwd, { recursive: true });
  report("calibration: deno run of an empty script, peak RSS", floor.map((k) => k / 1024), "MiB");
  const provider = await startProviderProcess("./_turn_provider.ts");
  const url = provider.url;
  let failed = false;
  try {
    for (const shape of SHAPES) {
      const status = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", "--v8-flags=--expose-gc", self, "--shape", shape.name, url],
        stdout: "inherit",
        stderr: "inherit",
      }).spawn().status;
      failed ||= !status.success;
    }
  } finally {
    await provider.stop();
  }
  if (failed) Deno.exit(1);
}

/** One shape in this process: the serve app over a temp worktree, turns, samples. */
async function runShape(name: string, providerUrl: string): Promise<void> {
  const shape = { ...SHAPES.find((s) => s.name === name)! };
  // Optional sizes after the URL, for exploring: turns, then the sampling interval.
  if (Deno.args[3]) shape.turns = Number(Deno.args[3]);
  if (Deno.args[4]) shape.every = Number(Deno.args[4]);
  const { home, worktree, tmpfs } = await makeWorktree(name, providerUrl);
  try {
    await runTurns(shape, worktree, tmpfs);
  } finally {
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** Runs the shape's turns through the handler of a serve app over `worktree`, sampling. */
async function runTurns(shape: Shape, worktree: string, tmpfs: boolean): Promise<void> {
  const { name } = shape;
  const runtime = await Runtime.load({ path: worktree });
  const app = await createServeApp(runtime, {
    mcpEndpoint: (host) => createMcpHttpEndpoint(host),
    warn: (message) => console.error(`warning: ${message}`),
  });
  const handler = app.handler({ hostname: "127.0.0.1", port: 8787 });
  const file = name === "c" ? "big.txt" : "notes.txt";
  const turn = async (i: number) => {
    const body = {
      prompt: `Read ${file} and tell me what it holds (turn ${i})`,
      ...(name === "a" ? {} : { session_id: `bench-${i % NAMED}` }),
    };
    const response = await handler(
      new Request(`${BASE}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    const result = await response.json();
    if (response.status !== 200 || result.tool_calls.length !== 1 || !result.tool_calls[0].ok) {
      throw new Error(`turn ${i}: HTTP ${response.status} ${JSON.stringify(result).slice(0, 300)}`);
    }
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  console.log(`\n${shape.label}: ${shape.turns} turns, worktree ${tmpfs ? "on tmpfs" : "on disk"}`);
  if (shape.note) console.log(`  (${shape.note})`);
  console.log("  turns   RSS MiB  heap MiB  external MiB  sessions on disk MiB  ms/turn");
  const samples: Array<{ turns: number; rss: number; heap: number; disk: number }> = [];
  let last = performance.now();
  for (let i = 1; i <= shape.turns; i++) {
    await turn(i);
    if (i % shape.every !== 0) continue;
    const msPerTurn = (performance.now() - last) / shape.every;
    gc?.();
    const { rss, heapUsed, external } = Deno.memoryUsage();
    const disk = (await folderBytes(`${worktree}/.svc/sessions`)) / MiB;
    samples.push({ turns: i, rss: rss / MiB, heap: heapUsed / MiB, disk });
    const cells = [rss / MiB, heapUsed / MiB, external / MiB, disk, msPerTurn];
    const widths = [8, 9, 13, 21, 8];
    console.log(
      `  ${String(i).padStart(5)}` +
        cells.map((v, k) => v.toFixed(1).padStart(widths[k] + 1)).join(""),
    );
    last = performance.now();
  }
  const growth = (from: (typeof samples)[number], to: (typeof samples)[number]) =>
    `growth from turn ${from.turns} to ${to.turns}: RSS ${sign(to.rss - from.rss)} MiB, heap ${
      sign(to.heap - from.heap)
    } MiB, sessions on disk ${sign(to.disk - from.disk)} MiB`;
  // The second half tells a warm-up plateau from growth that goes on with the turns.
  console.log(`  ${growth(samples[0], samples.at(-1)!)}${gc ? "" : " (no gc: use --expose-gc)"}`);
  console.log(`  ${growth(samples[(samples.length >> 1) - 1], samples.at(-1)!)}`);
  await app.close();
}

/**
 * A temp HOME and worktree (on tmpfs when there is one: fsync would dominate the turn time, and
 * memory does not depend on it) with notes.txt, a 200 KB big.txt and a config for the provider.
 */
async function makeWorktree(name: string, providerUrl: string) {
  const home = await Deno.makeTempDir({ prefix: "svc-bench-home-" });
  const tmpfs = await Deno.stat("/dev/shm").then((s) => s.isDirectory, () => false);
  const worktree = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "svc-bench-memory-", dir: tmpfs ? "/dev/shm" : undefined }),
  );
  Deno.env.set("HOME", home);
  await Deno.writeTextFile(`${worktree}/notes.txt`, "The secret word is PAPAYA.\n");
  const line = (n: number) =>
    `${String(n).padStart(5, "0")} ${"lorem ipsum dolor sit amet ".repeat(2)}`;
  await Deno.writeTextFile(
    `${worktree}/big.txt`,
    Array.from({ length: 3500 }, (_, n) => line(n)).join("\n") + "\n",
  );
  await Deno.mkdir(`${worktree}/.svc`);
  await Deno.writeTextFile(
    `${worktree}/.svc/config.json`,
    JSON.stringify({
      base_url: providerUrl,
      model: "m",
      ...(name === "c" ? { session_tool_max_chars: 2000 } : {}),
    }),
  );
  return { home, worktree, tmpfs };
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile) total += (await Deno.stat(`${dir}/${entry.name}`)).size;
  }
  return total;
}

function sign(value: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
}
