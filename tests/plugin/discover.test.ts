import assert from "node:assert/strict";
import { join } from "node:path";
import { bundledPluginsDir, pluginRoots } from "../../src/plugin/discover.ts";
import { loadPlugins, type PluginInfo } from "../../src/plugin/load.ts";
import { makeLayout, manifest, noGrant, REPO, writePlugin, writeToolPlugin } from "./_helpers.ts";

Deno.test("the bundled root is the repository's plugins folder from any cwd", () => {
  assert.equal(bundledPluginsDir(), join(REPO, "plugins"));
  const home = Deno.env.get("HOME") ?? ".";
  assert.deepEqual(pluginRoots({ worktree: "/w" }), [
    { origin: "bundled", dir: join(REPO, "plugins") },
    { origin: "global", dir: join(home, ".config", "svc", "plugins") },
    { origin: "local", dir: "/w/.svc/plugins" },
  ]);
});

Deno.test("a later root overrides an earlier one and origins are recorded", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "shared", "from_bundled", {
    version: "1.0.0",
  });
  await writeToolPlugin(t.globalDir, "shared", "from_global", {
    version: "2.0.0",
  });
  await writeToolPlugin(t.localDir, "shared", "from_local", {
    version: "3.0.0",
  });
  await writeToolPlugin(t.bundledDir, "only-bundled", "b");
  await writeToolPlugin(t.globalDir, "only-global", "g");
  await writeToolPlugin(t.globalDir, "pair", "pair_global");
  await writeToolPlugin(t.localDir, "pair", "pair_local");
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  const info = (
    name: string,
    origin: PluginInfo["origin"],
    status: string,
    message = "",
  ) => {
    const dir = join(
      {
        bundled: t.bundledDir,
        global: t.globalDir,
        local: t.localDir,
      }[origin!],
      name,
    );
    return {
      name,
      version: name === "shared"
        ? { bundled: "1.0.0", global: "2.0.0", local: "3.0.0" }[origin!]
        : "1.0.0",
      origin,
      dir,
      status,
      message,
      permissions: origin === "bundled" ? "all" : noGrant(dir),
    };
  };
  assert.deepEqual(result.plugins, [
    info("only-bundled", "bundled", "loaded"),
    info("only-global", "global", "loaded"),
    info("pair", "local", "loaded", "Overrides the global copy"),
    info("pair", "global", "disabled", "Overridden by the local copy"),
    info("shared", "local", "loaded", "Overrides the global copy"),
    info("shared", "global", "disabled", "Overridden by the local copy"),
    info("shared", "bundled", "disabled", "Overridden by the global copy"),
  ]);
  assert.deepEqual(result.tools.map((tool) => tool.name), [
    "b",
    "g",
    "pair_local",
    "from_local",
  ]);
});

Deno.test("an incompatible plugin is skipped with the reason and hides no older copy", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "fs", "fs_bundled");
  await writeToolPlugin(t.localDir, "fs", "fs_local", {
    svc_version: ">=99.0.0",
  });
  await writeToolPlugin(t.globalDir, "old", "old", {
    runtime: { deno: "<2.0.0" },
  });
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  assert.deepEqual(result.plugins, [
    {
      name: "fs",
      version: "1.0.0",
      origin: "bundled",
      dir: join(t.bundledDir, "fs"),
      status: "loaded",
      message: "",
      permissions: "all",
    },
    {
      name: "fs",
      version: "1.0.0",
      origin: "local",
      dir: join(t.localDir, "fs"),
      status: "skipped",
      message: "Requires svc >=99.0.0, this is 0.27.0",
      permissions: noGrant(join(t.localDir, "fs")),
    },
    {
      name: "old",
      version: "1.0.0",
      origin: "global",
      dir: join(t.globalDir, "old"),
      status: "skipped",
      message: `Requires deno <2.0.0, this is ${Deno.version.deno}`,
      permissions: noGrant(join(t.globalDir, "old")),
    },
  ]);
  assert.deepEqual(result.tools.map((tool) => tool.name), ["fs_bundled"]);
});

Deno.test("bad and hostile plugin folders are reported and the good ones still load", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.localDir, "good", "good_tool");
  await writePlugin(t.localDir, "broken-json", {
    "manifest.json": "{",
    "mod.ts": "",
  });
  await writePlugin(t.localDir, "no-manifest", { "mod.ts": "" });
  await writePlugin(t.localDir, "escape", {
    "manifest.json": manifest("escape", { entry: "../../x.ts" }),
  });
  await writePlugin(t.localDir, "zz-dup", {
    "manifest.json": manifest("good"),
    "mod.ts": "",
  });
  await Deno.writeTextFile(join(t.localDir, "stray.txt"), "not a plugin");
  await Deno.mkdir(join(t.localDir, ".staging-1"));
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  const errored = (
    name: string,
    folder: string,
    message: string,
    version = "",
  ) => ({
    name,
    version,
    origin: "local",
    dir: join(t.localDir, folder),
    status: "errored",
    message,
    permissions: version ? noGrant(join(t.localDir, folder)) : null,
  });
  assert.deepEqual(result.plugins, [
    errored("broken-json", "broken-json", result.plugins[0].message),
    errored(
      "escape",
      "escape",
      "Entry ../../x.ts is outside the plugin folder",
    ),
    { ...errored("good", "good", "", "1.0.0"), status: "loaded" },
    errored(
      "good",
      "zz-dup",
      `Duplicate plugin name; ${join(t.localDir, "good")} already provides it`,
      "1.0.0",
    ),
    errored("no-manifest", "no-manifest", "Missing manifest.json"),
  ]);
  assert.match(result.plugins[0].message, /^Invalid manifest\.json: /);
  assert.deepEqual(result.tools.map((tool) => tool.name), ["good_tool"]);
});
