import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

async function script(path: string, args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}${path}`, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("the task scripts print their usage for --help and refuse an unknown option, building and writing nothing", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "svc_script_args_" });
  try {
    for (const path of ["scripts/bundle.ts", "scripts/compile.ts", "scripts/install.ts"]) {
      const task = path.slice("scripts/".length, -3);
      const help = await script(path, ["--help"], cwd);
      assert.deepEqual([help.code, help.stderr], [0, ""], path);
      assert.ok(help.stdout.startsWith(`Usage: deno task ${task} `), help.stdout);
    }
    for (const path of ["scripts/bundle.ts", "scripts/compile.ts"]) {
      const bad = await script(path, ["--frobnicate"], cwd);
      assert.equal(bad.code, 2, path);
      assert.ok(bad.stderr.startsWith("unknown option --frobnicate\n\nUsage: "), bad.stderr);
    }
    const bench = await script("scripts/bench/mod.ts", ["no_such_bench"], cwd);
    assert.deepEqual([bench.code, bench.stdout, bench.stderr], [
      2,
      "",
      "no benchmark matches no_such_bench; run deno task bench --help\n",
    ]);
    const benchHelp = await script("scripts/bench/mod.ts", ["-h"], cwd);
    assert.match(benchHelp.stdout, /^Usage: deno task bench \[name\.\.\.\]\n[^]*\bturns\b/);
    assert.deepEqual([...Deno.readDirSync(cwd)], []);
    assert.equal(await Deno.stat(`${ROOT}--help`).catch(() => null), null);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
