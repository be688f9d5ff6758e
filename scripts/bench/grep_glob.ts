/**
 * Benchmark: grep and glob over a generated tree (default 100,000 files) against ripgrep.
 * `deno task bench grep_glob, or deno run -A scripts/bench/grep_glob.ts [--files N] [--dir D] [--runs R]`
 * Prints median milliseconds; ripgrep rows are skipped when `rg` is not installed.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { Tool } from "../../src/plugin/api.ts";
import { toolContext } from "../../src/tool/context.ts";
import { glob } from "../../plugins/svc-core-fs/src/glob.ts";
import { grep } from "../../plugins/svc-core-fs/src/grep.ts";
import { setRipgrepEnabled } from "../../plugins/svc-core-fs/src/ripgrep.ts";

const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split(" ");

/** Writes `count` small source files in nested folders, 1 in 997 holding `needleToken`. */
async function generate(root: string, count: number): Promise<void> {
  let seed = 1;
  const word = () => WORDS[(seed = (seed * 48271) % 2147483647) % WORDS.length];
  for (let n = 0; n < count; n++) {
    const dir = join(root, `pkg${Math.floor(n / 5000)}`, `mod${Math.floor(n / 100) % 50}`);
    if (n % 100 === 0) await Deno.mkdir(dir, { recursive: true });
    const lines = Array.from({ length: 30 }, () => Array.from({ length: 8 }, word).join(" "));
    if (n % 997 === 0) lines[5] += " needleToken";
    const ext = [".ts", ".py", ".md", ".txt"][n % 4];
    await Deno.writeTextFile(join(dir, `f${n % 100}${ext}`), lines.join("\n") + "\n");
  }
  await Deno.mkdir(join(root, "node_modules", "dep"), { recursive: true });
  await Deno.writeTextFile(join(root, "node_modules", "dep", "index.js"), "needleToken\n");
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/** ripgrep as a user runs it, its whole output read through a pipe. */
async function ripgrep(cwd: string, args: string[]): Promise<void> {
  const child = new Deno.Command("rg", { args, cwd, stdout: "piped", stderr: "null" }).spawn();
  for await (const _ of child.stdout) { /* drain */ }
  await child.status;
}

const hasRipgrep = (() => {
  try {
    return new Deno.Command("rg", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { files: { type: "string" }, dir: { type: "string" }, runs: { type: "string" } },
  });
  const count = Number(values.files ?? 100_000);
  const runs = Number(values.runs ?? 5);
  const root = values.dir ?? await Deno.makeTempDir({ prefix: "svc-bench-fs-" });
  let fileCount = 0;
  for await (const _ of Deno.readDir(root)) fileCount++;
  if (fileCount === 0) {
    console.log(`generating ${count} files in ${root}`);
    await generate(root, count);
  }
  const ctx = toolContext({
    worktree: root,
    signal: new AbortController().signal,
    config: ConfigSchema.parse({}),
    session: "bench",
    headless: true,
    trusted: false,
  });
  const tool = (t: Tool, args: Record<string, unknown>) => () => t.run(args, ctx);
  const inProcess = (t: Tool, args: Record<string, unknown>) => async () => {
    setRipgrepEnabled(false);
    try {
      await t.run(args, ctx);
    } finally {
      setRipgrepEnabled(undefined);
    }
  };
  const rows: Array<[string, () => Promise<unknown>, boolean]> = [
    ["rg -n needleToken (piped)", () => ripgrep(root, ["-n", "needleToken"]), true],
    ["grep needleToken (ripgrep)", tool(grep, { pattern: "needleToken" }), true],
    ["grep needleToken (in-process)", inProcess(grep, { pattern: "needleToken" }), false],
    ["rg -n 'kappa mu' (piped)", () => ripgrep(root, ["-n", "kappa mu"]), true],
    ["grep 'kappa mu' (ripgrep)", tool(grep, { pattern: "kappa mu" }), true],
    ["grep 'kappa mu' (in-process)", inProcess(grep, { pattern: "kappa mu" }), false],
    ["rg --files -g '*.py' (piped)", () => ripgrep(root, ["--files", "-g", "*.py"]), true],
    ["glob *.py (ripgrep)", tool(glob, { pattern: "*.py" }), true],
    ["glob *.py (in-process)", inProcess(glob, { pattern: "*.py" }), false],
  ];
  for (const [name, fn, needsRipgrep] of rows) {
    if (needsRipgrep && !hasRipgrep) continue;
    console.log(`${name.padEnd(32)} ${(await median(runs, fn)).toFixed(0).padStart(6)} ms`);
  }
  if (!values.dir) await Deno.remove(root, { recursive: true });
}
