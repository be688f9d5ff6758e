/**
 * The cost of running third-party plugins sandboxed (a Worker in a child process): one tool call
 * into a sandboxed plugin against the same tool in svc's process (the documented example plugin's
 * word_count), and a whole `svc run` with no third-party plugin, with the example as a global
 * plugin (its registrations remembered, its Worker not started by a run that does not call it),
 * with a copy granted reading anywhere, a host, a program and a variable (remembered the same
 * way), and with a copy whose manifest sets `dynamic_registrations` (loaded at every start).
 * Samples alternate so the VM's changing speed hits all alike.
 */
import { join } from "node:path";
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { toolContext } from "../../src/tool/context.ts";
import type { Tool } from "../../src/tool/types.ts";
import { SVC_PERMISSIONS } from "../permissions.ts";
import { MAIN, median, report, timeProcess } from "./_util.ts";

const example = new URL("../../docs/plugin_example", import.meta.url).pathname;
const base = await Deno.makeTempDir({ prefix: "svc-bench-sandbox-" });

async function copy(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copy(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

// Calibration: this VM's speed varies over time, so print the floor beside the figures.
await Deno.writeTextFile(`${base}/empty.ts`, "");
const floor: number[] = [];
for (let i = 0; i < 10; i++) {
  floor.push((await timeProcess([Deno.execPath(), "run", "--quiet", `${base}/empty.ts`])).wall);
}
report("calibration: deno run of an empty script", floor);

// One tool call: the example's word_count in svc's process (a bundled copy) and in its Worker.
const bundledDir = join(base, "bundled");
const globalDir = join(base, "global");
const worktree = join(base, "work");
await copy(example, join(bundledDir, "svc-example-wordcount"));
await copy(example, join(globalDir, "svc-example-wordcount"));
await Deno.mkdir(worktree);
const roots = { worktree, trustLocal: false, names: [] };
const inProcess = await loadPlugins({ ...roots, bundledDir, globalDir: join(base, "none") });
const sandboxed = await loadPlugins({ ...roots, bundledDir: join(base, "none"), globalDir });
const ctx = toolContext({
  worktree,
  config: ConfigSchema.parse({}),
  trusted: false,
  headless: true,
  session: "bench",
  signal: new AbortController().signal,
});
const CALLS = 200;
async function perCall(tool: Tool): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await tool.run({ text: "one two three\nfour" }, ctx);
  return (performance.now() - started) / CALLS;
}
const local = inProcess.tools[0];
const remote = sandboxed.tools[0];
await perCall(local);
await perCall(remote);
const localCalls: number[] = [];
const remoteCalls: number[] = [];
const added: number[] = [];
for (let i = 0; i < 25; i++) {
  const a = await perCall(local);
  const b = await perCall(remote);
  localCalls.push(a);
  remoteCalls.push(b);
  added.push(b - a);
}
sandboxed.close();
report("tool call, in-process plugin", localCalls);
report("tool call, sandboxed plugin", remoteCalls);
report("tool call: added by the sandbox", added, "ms", "< 1 ms");

// A whole `svc run`: no third-party plugin, and one global plugin (the example) to load.
const fake = await startFakeProvider(() => ({ text: "ok", chunkSize: 1000 }));
const bare = join(base, "home-bare");
const withPlugin = join(base, "home-plugin");
const withGranted = join(base, "home-granted");
const withEager = join(base, "home-eager");
await Deno.mkdir(join(bare, ".config", "svc"), { recursive: true });
const plugins = `{"plugins": ["svc-core-fs", "svc-core-edit", "svc-core-exec", "svc-core-git", ` +
  `"svc-core-dev", "svc-core-web", "svc-core-mcp", "svc-example-wordcount"]}`;
for (const home of [withPlugin, withGranted, withEager]) {
  const dir = join(home, ".config", "svc", "plugins", "svc-example-wordcount");
  await copy(example, dir);
  await Deno.writeTextFile(join(home, ".config", "svc", "config.json"), plugins);
  const manifest = JSON.parse(await Deno.readTextFile(join(dir, "manifest.json")));
  const permissions = { read: true, net: ["127.0.0.1"], run: ["git"], env: ["LANG"] };
  if (home === withGranted) {
    await Deno.writeTextFile(
      join(dir, "manifest.json"),
      JSON.stringify({ ...manifest, permissions }),
    );
  }
  if (home === withEager) {
    await Deno.writeTextFile(
      join(dir, "manifest.json"),
      JSON.stringify({ ...manifest, permissions, dynamic_registrations: true }),
    );
  }
}
const run = [
  Deno.execPath(),
  "run",
  ...SVC_PERMISSIONS,
  "--quiet",
  MAIN,
  "run",
  "--base-url",
  fake.url,
  "--model",
  "m",
  "--prompt",
  "hi",
];
const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/", ".cache", "deno");
const env = (home: string) => ({ HOME: home, PATH: Deno.env.get("PATH") ?? "", DENO_DIR: denoDir });
const homes = { bare, withPlugin, withGranted, withEager };
const walls: Record<string, number[]> = {
  bare: [],
  withPlugin: [],
  withGranted: [],
  withEager: [],
};
for (const home of Object.values(homes)) await timeProcess(run, { cwd: worktree, env: env(home) });
for (let i = 0; i < 15; i++) {
  for (const [key, home] of Object.entries(homes)) {
    walls[key].push((await timeProcess(run, { cwd: worktree, env: env(home) })).wall);
  }
}
await fake.close();
report("svc run, bundled plugins only: wall", walls.bare);
report("svc run, plus one global plugin (remembered): wall", walls.withPlugin);
report("svc run, plus one granted net, run, env, read (remembered): wall", walls.withGranted);
report(
  "svc run, plus one with dynamic_registrations (loaded at every start): wall",
  walls.withEager,
);
const over = (key: string) => (median(walls[key]) - median(walls.bare)).toFixed(1);
console.log(
  `  added by one third-party plugin: ${over("withPlugin")} ms remembered, ` +
    `${over("withGranted")} ms granted more and remembered (target < 30 ms), ` +
    `${over("withEager")} ms loaded at start (median against median)`,
);
await Deno.remove(base, { recursive: true });
