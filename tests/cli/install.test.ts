import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { VERSION } from "../../src/version.ts";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { LAUNCHER_V8_OPTIONS } from "../../scripts/launcher_script.ts";
import { CALLER_DENO_DIR as DENO_DIR } from "../_support/builds.ts";

const CHECKOUT = new URL("../../", import.meta.url).pathname;
const EXAMPLE = new URL("../../docs/plugin_example", import.meta.url).pathname;

/** A copy of what `deno task install` reads from the checkout, so the test can move it. */
async function copyCheckout(to: string): Promise<void> {
  await Deno.mkdir(to);
  for (const name of ["main.ts", "deno.json", "deno.lock", "src", "plugins", "scripts"]) {
    await cp(`${CHECKOUT}${name}`, `${to}/${name}`, { recursive: true });
  }
}

Deno.test("deno task install puts a self-contained svc on PATH that outlives moving the checkout and loads bare-import plugins", async () => {
  await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" }, {
    trusted: true,
  });
  const root = await Deno.makeTempDir({ prefix: "svc-install-" });
  try {
    const checkout = `${root}/checkout`;
    await copyCheckout(checkout);
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${checkout}/scripts/install.ts`, "--root", `${root}/inst`],
      env: { HOME: box.home, DENO_DIR },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(built.success, true, new TextDecoder().decode(built.stderr));
    // The checkout is rebuilt from scratch (its dist/ gone) and moved: the installed svc is a copy.
    await Deno.remove(`${checkout}/dist`, { recursive: true });
    await Deno.rename(checkout, `${root}/moved`);
    const bin = `${root}/inst/bin`;
    const env = { ...box.env, DENO_DIR, PATH: `${bin}:${Deno.env.get("PATH")}` };
    const run = async (args: string[]) => {
      const out = await new Deno.Command(`${bin}/svc`, {
        args,
        cwd: box.worktree,
        env,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
    };
    assert.deepEqual(await run(["--version"]), { code: 0, stdout: `${VERSION}\n`, stderr: "" });

    const fake = await startFakeProvider([
      { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }] },
      { text: "PAPAYA" },
    ]);
    const answer = await run(["run", "--base-url", fake.url, "--model", "m", "-p", "secret?"]);
    await fake.close();
    assert.deepEqual([answer.code, answer.stdout], [0, "PAPAYA\n"], answer.stderr);
    assert.equal(fake.requests[1].body.messages.at(-1).content.includes("PAPAYA"), true);

    // The launcher runs svc under its own Deno cache folder; what svc runs sees the caller's
    // environment: DENO_DIR as the caller set it, nothing of the launcher's.
    const probe = 'echo "dir=$DENO_DIR nocheck=${DENO_NO_UPDATE_CHECK-unset} ' +
      "svc=$(env | grep -c '^SVC_')\"";
    const shell = await startFakeProvider([
      { tool_calls: [{ name: "run_command", arguments: { command: probe } }] },
      { text: "probed" },
    ]);
    const probed = await run([
      "run",
      "--base-url",
      shell.url,
      "--model",
      "m",
      "-p",
      "env",
      "--yes",
    ]);
    await shell.close();
    assert.deepEqual([probed.code, probed.stdout], [0, "probed\n"], probed.stderr);
    assert.match(
      shell.requests[1].body.messages.at(-1).content,
      new RegExp(`dir=${DENO_DIR} nocheck=unset svc=0\\b`),
    );
    await Deno.stat(`${root}/inst/lib/svc/.deno`);

    // A third-party plugin importing a bare `zod` loads: the installed svc carries the import map.
    const installed = await svc(["plugins", "install", EXAMPLE], { cwd: box.worktree, env });
    assert.equal(installed.code, 0, installed.stderr);
    assert.equal((await run(["config", "set", "plugins", "[]"])).code, 0);
    const listed = JSON.parse((await run(["plugins", "list", "--json"])).stdout);
    const example = listed.find((p: { name: string }) => p.name === "svc-example-wordcount");
    assert.deepEqual([example.status, example.origin], ["loaded", "local"], example.message);
    // ... in its sandbox (the installed build's Worker module), and its tool runs.
    const counting = await startFakeProvider([
      { tool_calls: [{ name: "word_count", arguments: { text: "a b" } }] },
      { text: "counted" },
    ]);
    const counted = await run(["run", "--base-url", counting.url, "--model", "m", "-p", "count"]);
    await counting.close();
    assert.deepEqual([counted.code, counted.stdout], [0, "counted\n"], counted.stderr);
    assert.equal(
      counting.requests[1].body.messages.at(-1).content,
      "2 words, 1 line, 3 characters",
    );
    // The installed command carries svc's permission set, not -A, and its V8 flags.
    const script = await Deno.readTextFile(`${bin}/svc`);
    for (const flag of SVC_PERMISSIONS) assert.ok(script.includes(` ${flag} `), script);
    assert.ok(script.includes(` --v8-flags=${LAUNCHER_V8_OPTIONS.join(",")} `), script);
    assert.ok(!/--allow-all|\s-A\s/.test(script), script);
    // ... and runs the Deno binary that installed it, by its path, not the deno on PATH.
    assert.ok(script.includes(` exec '${Deno.execPath()}' run `), script);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
