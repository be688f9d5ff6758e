import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_PLUGINS } from "../../src/config/schema.ts";
import { readSourceRecord } from "../../src/plugin/source.ts";
import {
  git,
  makeLayout,
  manifest,
  noGrant,
  runCli,
  writePlugin,
  writeToolPlugin,
} from "./_helpers.ts";

/** What install prints after the path for a plugin that declares no permissions. */
const NO_ASKS = "It runs sandboxed and asks for no permissions (it can read only its own folder)\n";
import { needs } from "../_support/tools.ts";

const ISO = /^\d{4}-\d\d-\d\dT/;

Deno.test("plugins install copies a local folder, records its source and refuses to overwrite", async () => {
  await using t = await makeLayout();
  const src = await writeToolPlugin(join(t.base, "src"), "hello", "hello_tool");
  await writePlugin(src, ".", { ".git/HEAD": "ref: refs/heads/main\n" });
  const first = await runCli(t, ["install", src]);
  const dir = join(t.localDir, "hello");
  assert.deepEqual(first, {
    code: 0,
    stdout: `Installed hello 1.0.0 (local) at ${dir}\n${NO_ASKS}`,
    stderr: "",
  });
  const record = await readSourceRecord(dir);
  assert.deepEqual(
    { ...record, installed_at: ISO.test(record!.installed_at) },
    {
      source: src,
      type: "path",
      installed_at: true,
    },
  );
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(),
    [
      ".svc-source.json",
      "manifest.json",
      "mod.ts",
    ],
  );
  const again = await runCli(t, ["install", src]);
  assert.deepEqual(again, {
    code: 1,
    stdout: "",
    stderr: `error: Plugin hello is already installed at ${dir}; use --force to replace it\n`,
  });
  assert.equal((await runCli(t, ["install", src, "--force"])).code, 0);
  const listed = await runCli(t, ["list", "--json"]);
  assert.deepEqual(JSON.parse(listed.stdout), [
    {
      name: "hello",
      version: "1.0.0",
      origin: "local",
      dir,
      status: "disabled",
      message: "Not in the plugins config list",
      permissions: noGrant(dir),
    },
    ...BUNDLED_PLUGINS.map((name) => ({
      name,
      version: "",
      origin: null,
      dir: null,
      status: "disabled",
      message: "Bundled plugin not shipped in this build yet",
      permissions: null,
    })),
  ]);
});

Deno.test("plugins install refuses a bad manifest and leaves nothing behind", async () => {
  await using t = await makeLayout();
  const bad = await writePlugin(t.base, "bad", {
    "manifest.json": manifest("bad", { entry: "../../x.ts" }),
  });
  assert.deepEqual(await runCli(t, ["install", bad]), {
    code: 1,
    stdout: "",
    stderr: `error: Cannot install from ${bad}: Entry ../../x.ts is outside the plugin folder\n`,
  });
  const future = await writeToolPlugin(t.base, "future", "f", {
    svc_version: ">=99.0.0",
  });
  assert.deepEqual(await runCli(t, ["install", future]), {
    code: 1,
    stdout: "",
    stderr: "error: Cannot install future 1.0.0: Requires svc >=99.0.0, this is 0.27.0\n",
  });
  assert.deepEqual(await Array.fromAsync(Deno.readDir(t.localDir)), []);
  const missing = await runCli(t, ["install", join(t.base, "nowhere")]);
  assert.equal(
    missing.stderr,
    `error: Cannot install from ${join(t.base, "nowhere")}: no such folder\n`,
  );
});

Deno.test(
  "plugins install clones a git repository and update re-fetches it (needs git)",
  needs("git"),
  async () => {
    await using t = await makeLayout();
    const repo = await writeToolPlugin(t.base, "repo", "v1_tool", {
      version: "0.1.0",
    });
    await git(repo, "init", "--quiet");
    await git(repo, "add", ".");
    await git(repo, "commit", "--quiet", "-m", "v1");
    const first = await git(repo, "rev-parse", "HEAD");
    const url = `file://${repo}`;
    const installed = await runCli(t, ["install", url, "--global"]);
    const dir = join(t.globalDir, "repo");
    assert.deepEqual(installed, {
      code: 0,
      stdout: `Installed repo 0.1.0 (global) at ${dir}\n${NO_ASKS}`,
      stderr: "",
    });
    const record = await readSourceRecord(dir);
    assert.deepEqual({ ...record, installed_at: "" }, {
      source: url,
      type: "git",
      installed_at: "",
      commit: first,
    });
    assert.equal(await Deno.stat(join(dir, ".git")).catch(() => null), null);

    await writeToolPlugin(t.base, "repo", "v2_tool", {
      version: "0.2.0",
      permissions: { net: ["api.example.com"] },
    });
    await git(repo, "commit", "--quiet", "-am", "v2");
    const updated = await runCli(t, ["update", "repo"]);
    assert.deepEqual(updated, {
      code: 0,
      stdout: "Updated repo 0.1.0 -> 0.2.0 (global)\n" +
        "It runs sandboxed and now asks for:\n  net: api.example.com\n",
      stderr: "",
    });
    assert.equal(
      (await readSourceRecord(dir))?.commit,
      await git(repo, "rev-parse", "HEAD"),
    );
    assert.match(await Deno.readTextFile(join(dir, "mod.ts")), /v2_tool/);
    const all = await runCli(t, ["update"]);
    assert.deepEqual(all, {
      code: 0,
      stdout: "Updated repo 0.2.0 -> 0.2.0 (global)\n",
      stderr: "",
    });
  },
);

Deno.test("bundled plugins cannot be updated or uninstalled, installed ones can be removed", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "svc-core-fs", "file_read");
  assert.deepEqual(await runCli(t, ["uninstall", "svc-core-fs"]), {
    code: 1,
    stdout: "",
    stderr:
      "error: Plugin svc-core-fs is bundled and cannot be uninstalled; disable it by removing it from the `plugins` config list\n",
  });
  assert.deepEqual(await runCli(t, ["update", "svc-core-fs"]), {
    code: 1,
    stdout: "",
    stderr:
      "error: Plugin svc-core-fs is bundled and cannot be updated; it is updated together with svc\n",
  });
  assert.deepEqual(await runCli(t, ["uninstall", "ghost"]), {
    code: 1,
    stdout: "",
    stderr: "error: Plugin ghost is not installed\n",
  });
  const local = await writeToolPlugin(
    t.localDir,
    "svc-core-fs",
    "file_read_override",
  );
  assert.deepEqual(await runCli(t, ["update", "svc-core-fs"]), {
    code: 1,
    stdout: "",
    stderr:
      "error: Plugin svc-core-fs has no recorded source; reinstall it with svc plugins install --force\n",
  });
  assert.deepEqual(
    await runCli(t, ["uninstall", "svc-core-fs", "--path", t.worktree], t.base),
    {
      code: 0,
      stdout: `Uninstalled svc-core-fs (local) from ${local}\n`,
      stderr: "",
    },
  );
  assert.equal(await Deno.stat(local).catch(() => null), null);
  assert.equal(
    await Deno.stat(join(t.bundledDir, "svc-core-fs")).then((s) => s.isDirectory),
    true,
  );
});

Deno.test("plugins install --deps caches declared requirements", async () => {
  await using t = await makeLayout();
  const src = await writeToolPlugin(t.base, "deps", "d", {
    requires: ["npm:semver@7.8.6"],
  });
  const run = await runCli(t, ["install", src, "--deps"]);
  assert.deepEqual(run, {
    code: 0,
    stdout: `Installed deps 1.0.0 (local) at ${join(t.localDir, "deps")}\n${NO_ASKS}`,
    stderr: "",
  });
});

Deno.test("plugins install of the worktree itself copies the plugin, not svc's own folders", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.base, "work", "self_tool");
  await writePlugin(t.worktree, ".", { "node_modules/x/index.js": "", ".svc/config.json": "{}" });
  const run = await runCli(t, ["install", "."]);
  const dir = join(t.localDir, "work");
  assert.deepEqual(run, {
    code: 0,
    stdout: `Installed work 1.0.0 (local) at ${dir}\n${NO_ASKS}`,
    stderr: "",
  });
  assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(), [
    ".svc-source.json",
    "manifest.json",
    "mod.ts",
  ]);
});

Deno.test("a plugin installed into an untrusted worktree is listed as skipped until svc trust", async () => {
  await using t = await makeLayout({ trusted: false });
  const src = await writeToolPlugin(join(t.base, "src"), "hello", "hello_tool");
  const install = await runCli(t, ["install", src]);
  assert.deepEqual(install, {
    code: 0,
    stdout: `Installed hello 1.0.0 (local) at ${join(t.localDir, "hello")}\n${NO_ASKS}`,
    stderr: "note: this worktree is not trusted, so its plugins do not load; run svc trust\n",
  });
  const status = async () => {
    const listed = await runCli(t, ["list", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    const hello = JSON.parse(listed.stdout).find((p: { name: string }) => p.name === "hello");
    return [hello.status, hello.message];
  };
  assert.deepEqual(await status(), [
    "skipped",
    "Not loaded: this worktree is not trusted (run svc trust to load it)",
  ]);
  await Deno.writeTextFile(
    join(t.home, ".config", "svc", "trusted.json"),
    JSON.stringify([t.worktree]),
  );
  // Trusted, it is an ordinary local plugin: loaded once the plugins list names it.
  assert.deepEqual(await status(), ["disabled", "Not in the plugins config list"]);
});
