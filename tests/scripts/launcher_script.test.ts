import assert from "node:assert/strict";
import {
  LAUNCHER_V8_OPTIONS,
  launcherScript,
  notNativeDeno,
  SERVE_V8_OPTIONS,
} from "../../scripts/launcher_script.ts";

/**
 * A temp folder with a launcher for a tiny main.js that prints what it runs on, and a `deno` on
 * PATH that is not the binary (it would say so and fail).
 */
async function launcherFor(deno: string) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-launcher-" }));
  await Deno.mkdir(`${dir}/path`);
  await Deno.writeTextFile(`${dir}/path/deno`, "#!/bin/sh\necho decoy >&2\nexit 9\n", {
    mode: 0o755,
  });
  await Deno.writeTextFile(`${dir}/deno.json`, "{}\n");
  await Deno.writeTextFile(
    `${dir}/main.js`,
    "const cache = Deno.env.get('DENO_DIR');\n" +
      "console.log(JSON.stringify({ deno: Deno.execPath(), pid: Deno.pid, args: Deno.args, cache }));\n",
  );
  const launcher = `${dir}/svc`;
  await Deno.writeTextFile(
    launcher,
    launcherScript({
      deno,
      launcher,
      cacheDir: `${dir}/cache`,
      config: `${dir}/deno.json`,
      main: `${dir}/main.js`,
    }),
    { mode: 0o755 },
  );
  return {
    launcher,
    dir,
    env: { PATH: `${dir}/path:${Deno.env.get("PATH")}` },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("the launcher execs the Deno binary it names, not the deno first on PATH: svc is the pid that was started", async () => {
  await using box = await launcherFor(Deno.execPath());
  const child = new Deno.Command(box.launcher, {
    args: ["a b", "c"],
    env: box.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
    deno: Deno.execPath(),
    pid: child.pid,
    args: ["a b", "c"],
    cache: `${box.dir}/cache`,
  });
});

Deno.test("svc serve runs without --no-lazy under a cache folder of its own; every other command under the shared one", async () => {
  await using box = await launcherFor(Deno.execPath());
  const run = async (args: string[]) => {
    const out = await new Deno.Command(box.launcher, { args, env: box.env, stdout: "piped" })
      .output();
    const { cache, args: seen } = JSON.parse(new TextDecoder().decode(out.stdout));
    return { code: out.code, cache, args: seen };
  };
  assert.deepEqual(
    [await run(["serve", "--port", "0"]), await run(["run", "serve"]), await run([])],
    [
      { code: 0, cache: `${box.dir}/cache-serve`, args: ["serve", "--port", "0"] },
      { code: 0, cache: `${box.dir}/cache`, args: ["run", "serve"] },
      { code: 0, cache: `${box.dir}/cache`, args: [] },
    ],
  );
  const script = await Deno.readTextFile(box.launcher);
  const flags = script.split("\n").filter((line) => line.includes("exec ")).map((line) =>
    /--v8-flags=(\S+)/.exec(line)?.[1]
  );
  assert.deepEqual(flags, [SERVE_V8_OPTIONS.join(","), LAUNCHER_V8_OPTIONS.join(",")]);
  assert.ok(!SERVE_V8_OPTIONS.includes("--no-lazy" as never));
});

Deno.test("a launcher whose Deno binary is gone says to install svc again and exits 127", async () => {
  await using box = await launcherFor("/nonexistent/deno");
  const out = await new Deno.Command(box.launcher, {
    env: box.env,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.deepEqual([out.code, new TextDecoder().decode(out.stdout)], [127, ""]);
  assert.equal(
    new TextDecoder().decode(out.stderr),
    "svc: /nonexistent/deno, the Deno that svc was installed with, is gone or not executable " +
      "(Deno upgraded or moved?); install svc again: run `deno task install` in the svc checkout\n",
  );
});

Deno.test("only a native executable can be the launcher's Deno: a script such as npm's Node wrapper is refused", async () => {
  assert.equal(await notNativeDeno(Deno.execPath()), null);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bin.cjs`, "#!/usr/bin/env node\n", { mode: 0o755 });
    assert.equal(
      await notNativeDeno(`${dir}/bin.cjs`),
      `${dir}/bin.cjs is a script, not the Deno binary`,
    );
    await Deno.writeTextFile(`${dir}/plain`, "\x7fELF", { mode: 0o644 });
    assert.equal(await notNativeDeno(`${dir}/plain`), `${dir}/plain is not an executable file`);
    assert.match(String(await notNativeDeno(`${dir}/none`)), /^\S+\/none cannot be read \(/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
