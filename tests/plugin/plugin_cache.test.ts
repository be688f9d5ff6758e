import assert from "node:assert/strict";
import { join } from "node:path";
import { loadPlugins } from "../../src/plugin/load.ts";
import { call } from "./_sandbox.ts";
import { type Layout, makeLayout, manifest, writePlugin } from "./_helpers.ts";

/** A plugin whose every module evaluation registers `probe` under a new description. */
function stampPlugin(
  t: Layout,
  permissions: unknown = {},
  busyMs = 0,
  extra: Record<string, unknown> = {},
) {
  return writePlugin(t.globalDir, "stamp", {
    "manifest.json": manifest("stamp", { permissions, ...extra }),
    "mod.ts": `import { z } from "zod";
const stamp = crypto.randomUUID();
export function register_tools(registry) {
  const end = Date.now() + ${busyMs};
  while (Date.now() < end) {}
  registry.add({ name: "probe", category: "read", description: stamp, schema: z.object({}),
    run: async () => stamp });
}
`,
  });
}

/** Loads the plugin and returns its tool's description and the loaded result. */
async function load(t: Layout, options: { fresh?: boolean; timeoutMs?: number } = {}) {
  const loaded = await loadPlugins({ ...t.roots, names: ["stamp"], ...options });
  assert.deepEqual(loaded.plugins.map((p) => [p.status, p.message]), [["loaded", ""]]);
  return { loaded, stamp: loaded.tools[0].description };
}

Deno.test("a plugin granted nothing starts from remembered registrations and boots at its first call", async () => {
  await using t = await makeLayout();
  await stampPlugin(t);
  const first = await load(t);
  first.loaded.close();
  // Its registrations, and its manifest as known compatible.
  const remembered = await Array.fromAsync(Deno.readDir(join(t.home, ".config/svc/plugin_cache")));
  assert.deepEqual(remembered.map((e) => /^manifest-|\.json$/.exec(e.name)?.[0]).sort(), [
    ".json",
    "manifest-",
  ]);
  // Remembered: the same description, and no module evaluation until the tool runs.
  const second = await load(t);
  assert.equal(second.stamp, first.stamp);
  const ran = await call(second.loaded);
  second.loaded.close();
  assert.ok("content" in ran && ran.content !== first.stamp, JSON.stringify(ran));
  // The Worker's hooks registered something new: remembered for the next start.
  const third = await load(t);
  third.loaded.close();
  assert.equal(third.stamp, ran.content);
  // `fresh` runs the hooks whatever is remembered.
  const fresh = await load(t, { fresh: true });
  fresh.loaded.close();
  assert.notEqual(fresh.stamp, third.stamp);
});

Deno.test("a changed file, a changed grant or a new value of a granted variable makes a plugin load afresh", async () => {
  await using t = await makeLayout();
  const dir = await stampPlugin(t);
  const first = await load(t);
  first.loaded.close();
  await Deno.writeTextFile(join(dir, "notes.txt"), "changed");
  const changed = await load(t);
  changed.loaded.close();
  assert.notEqual(changed.stamp, first.stamp);
  // A plugin granted more (here the network, reading anywhere and a variable) is remembered too.
  Deno.env.set("SVC_TEST_STAMP_VAR", "one");
  try {
    await stampPlugin(t, { read: true, net: ["127.0.0.1"], env: ["SVC_TEST_STAMP_VAR"] });
    const granted = [await load(t), await load(t)];
    granted.forEach((g) => g.loaded.close());
    assert.notEqual(granted[0].stamp, changed.stamp);
    assert.equal(granted[1].stamp, granted[0].stamp);
    Deno.env.set("SVC_TEST_STAMP_VAR", "two");
    const revalued = await load(t);
    revalued.loaded.close();
    assert.notEqual(revalued.stamp, granted[0].stamp);
  } finally {
    Deno.env.delete("SVC_TEST_STAMP_VAR");
  }
});

Deno.test("a plugin whose manifest sets dynamic_registrations runs its hooks at every start", async () => {
  await using t = await makeLayout();
  await stampPlugin(t, { net: ["127.0.0.1"] }, 0, { dynamic_registrations: true });
  const starts = [await load(t), await load(t)];
  starts.forEach((s) => s.loaded.close());
  assert.notEqual(starts[1].stamp, starts[0].stamp);
  const remembered = await Array.fromAsync(Deno.readDir(join(t.home, ".config/svc/plugin_cache")));
  assert.deepEqual(remembered.filter((e) => e.name.endsWith(".json")).map((e) => e.name), []);
});

Deno.test("a remembered plugin that no longer loads fails its calls with the reason", async () => {
  await using t = await makeLayout();
  await stampPlugin(t, {}, 2500);
  (await load(t, { timeoutMs: 10_000 })).loaded.close();
  const remembered = await load(t, { timeoutMs: 1500 });
  try {
    assert.deepEqual(await call(remembered.loaded), {
      error: "plugin stamp did not load: register_tools failed: timed out after 1500 ms",
    });
  } finally {
    remembered.loaded.close();
  }
});
