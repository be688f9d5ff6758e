import assert from "node:assert/strict";
import { Runtime } from "../../src/runtime/runtime.ts";
import { leftOutWarning } from "../../src/plugin/left_out.ts";
import { BUNDLED_PLUGINS } from "../../src/config/keys.ts";

const bundled = (off: string[]) =>
  BUNDLED_PLUGINS.map((name) => ({
    name,
    origin: "bundled" as const,
    status: off.includes(name) ? "disabled" as const : "loaded" as const,
  }));

Deno.test("a plugins list that adds a plugin names the bundled plugins it turns off", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(
      `${worktree}/.svc/config.json`,
      JSON.stringify({ plugins: ["svc-core-fs", "svc-core-edit", "svc-example-wordcount"] }),
    );
    const runtime = await Runtime.load({ path: worktree });
    runtime.plugins.close();
    assert.deepEqual(runtime.warnings, [
      "plugin svc-example-wordcount: Not found in the bundled, global or local plugin folders",
      "the plugins list turns off the bundled svc-core-dev, svc-core-eval, svc-core-exec, " +
      "svc-core-git, svc-core-mcp, svc-core-web (it names every plugin to load, so their tools " +
      'are not offered): add them to the list to keep them, or use "plugins": [] to load every ' +
      "plugin found",
    ]);
  } finally {
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
});

Deno.test("no left-out warning for the default list, [], bundled names only, or every bundled plugin kept", () => {
  const mine = [...BUNDLED_PLUGINS, "mine"];
  assert.deepEqual([
    leftOutWarning(BUNDLED_PLUGINS, bundled([])),
    leftOutWarning([], bundled([])),
    leftOutWarning(["svc-core-fs"], bundled(BUNDLED_PLUGINS.slice(1))),
    leftOutWarning(mine, bundled([])),
  ], [null, null, null, null]);
});
