import assert from "node:assert/strict";
import { join } from "node:path";
import { loadPlugins } from "../../src/plugin/load.ts";
import {
  makeLayout,
  manifest,
  REPO,
  runCli,
  testContext,
  writePlugin,
  writeToolPlugin,
} from "./_helpers.ts";

/** What install prints after the path for a plugin that declares no permissions. */
const NO_ASKS = "It runs sandboxed and asks for no permissions (it can read only its own folder)\n";

const passing = `Deno.test("passes", () => {});\n`;
const failing = `Deno.test("fails", () => { throw new Error("nope"); });\n`;

Deno.test("plugins test runs each plugin's tests and fails when one fails", async () => {
  await using t = await makeLayout();
  const ok = await writePlugin(t.localDir, "good", {
    "manifest.json": manifest("good"),
    "mod.ts": "",
    "tests/good_test.ts": passing,
  });
  await writePlugin(t.globalDir, "bad", {
    "manifest.json": manifest("bad"),
    "mod.ts": "",
    "tests/bad_test.ts": failing,
  });
  await writeToolPlugin(t.bundledDir, "untested", "u");

  const one = await runCli(t, ["test", "good"]);
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stdout, new RegExp(`^Testing good \\(local\\) in ${ok}\n`));
  assert.match(one.stdout, /passes \.\.\. .*ok/);
  assert.match(one.stdout, /Plugin tests passed: 1\n$/);

  const all = await runCli(t, ["test"]);
  assert.equal(all.code, 1);
  assert.match(all.stdout, /fails \.\.\. .*FAILED/);
  assert.match(all.stdout, /untested: no tests\n$/);
  assert.match(all.stderr, /error: Tests failed for bad\n$/);

  assert.deepEqual(await runCli(t, ["test", "ghost"]), {
    code: 1,
    stdout: "",
    stderr: "error: Plugin ghost is not installed\n",
  });
});

Deno.test("the documented example plugin installs, passes its tests and provides its tool", async () => {
  await using t = await makeLayout();
  const install = await runCli(t, [
    "install",
    join(REPO, "docs", "plugin_example"),
  ]);
  const dir = join(t.localDir, "svc-example-wordcount");
  assert.equal(
    install.stdout,
    `Installed svc-example-wordcount 0.1.0 (local) at ${dir}\n${NO_ASKS}`,
  );
  const tested = await runCli(t, ["test", "svc-example-wordcount"]);
  assert.equal(tested.code, 0, tested.stdout + tested.stderr);
  const listed = await runCli(t, ["list"]);
  assert.match(
    listed.stdout,
    /\nsvc-example-wordcount +0\.1\.0 +local +disabled +none +Not in the plugins config list\n/,
  );
  const result = await loadPlugins({
    ...t.roots,
    names: ["svc-example-wordcount"],
  });
  try {
    assert.deepEqual(result.plugins.map((p) => [p.name, p.status, p.message]), [
      ["svc-example-wordcount", "loaded", ""],
    ]);
    assert.deepEqual(await result.tools[0].run({ text: "a b" }, testContext(t.worktree)), {
      content: "2 words, 1 line, 3 characters",
    });
  } finally {
    result.close();
  }
});

Deno.test("plugins list prints a table and every subcommand documents --path", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "svc-core-fs", "file_read", {
    version: "0.27.0",
  });
  await writeToolPlugin(t.localDir, "extra", "x", { svc_version: ">=9.0.0" });
  await Deno.mkdir(join(t.worktree, ".svc"), { recursive: true });
  await Deno.writeTextFile(
    join(t.worktree, ".svc", "config.json"),
    `{"plugins": ["svc-core-fs"]}`,
  );
  const list = await runCli(t, ["list"]);
  assert.deepEqual(list, {
    code: 0,
    stdout: [
      "NAME         VERSION  ORIGIN   STATUS   PERMISSIONS  MESSAGE",
      "extra        1.0.0    local    skipped  none         Requires svc >=9.0.0, this is 0.27.0",
      "svc-core-fs  0.27.0   bundled  loaded   all",
      "",
    ].join("\n"),
    stderr: "",
  });
  for (const sub of ["list", "install", "update", "uninstall", "test"]) {
    const help = await runCli(t, [sub, "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--path <dir>/, sub);
  }
});

Deno.test("plugins test runs a plugin's tests with its permissions; an untrusted worktree's not at all, and exits 1 saying why", async () => {
  // Each test passes only when Deno refuses what the manifest does not grant (under -A it fails).
  const refusals = `Deno.test("run is refused", async () => {
  let refused = false;
  try { await new Deno.Command("true").output(); } catch (e) { refused = e instanceof Deno.errors.NotCapable; }
  if (!refused) throw new Error("started a process");
});
Deno.test("reading / is refused", () => {
  let refused = false;
  try { Deno.readDirSync("/"); } catch (e) { refused = e instanceof Deno.errors.NotCapable; }
  if (!refused) throw new Error("read /");
});
Deno.test("granted env is readable", () => { Deno.env.get("PATH"); });
`;
  const files = {
    "manifest.json": manifest("confined", { permissions: { env: ["PATH"] } }),
    "mod.ts": "",
    "tests/confined.test.ts": refusals,
  };
  await using t = await makeLayout();
  await writePlugin(t.localDir, "confined", files);
  const run = await runCli(t, ["test", "confined"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /ok \| 3 passed/);

  await using untrusted = await makeLayout({ trusted: false });
  await writePlugin(untrusted.localDir, "confined", files);
  assert.deepEqual(await runCli(untrusted, ["test", "confined"]), {
    code: 1,
    stdout: "confined: not run: this worktree is not trusted (run svc trust first)\n" +
      "Plugin tests passed: 0\n",
    stderr: "error: Not tested: confined (why is said above)\n",
  });
});
