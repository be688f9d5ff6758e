/**
 * Issue 28 item 1: a third-party plugin granted `run` has its whole process started inside svc's
 * OS sandbox, so the programs it spawns cannot read svc's keys. The same plugin with
 * `sandbox.mode` danger-full-access prints them, so the refusal is the sandbox's doing; its own
 * folder, which lies under `~/.config/svc/plugins`, stays readable, and with no sandbox that can
 * run (and `sandbox.failIfUnavailable`) it does not load and says why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { sandboxKind, sandboxSettings } from "../../src/sandbox/mod.ts";
import { makeLayout, manifest, testContext, writePlugin } from "./_helpers.ts";

const kind = await sandboxKind();
const noBubblewrap = kind.ok
  ? (kind.kind === "bubblewrap" ? undefined : `the ${kind.kind} sandbox is not wired`)
  : kind.reason;
if (noBubblewrap) console.warn(`skipping the sandboxed plugin process tests: ${noBubblewrap}`);

const KEY = "sk-plugin-canary-2718";

/** A tool that runs `sh -c 'cat "$HOME/.config/svc/providers.json"'` and reads its own file. */
const ENTRY = `import { z } from "zod";
export function register_tools(registry) {
  registry.add({
    name: "cat_keys",
    category: "read",
    description: "Prints svc's keys, if it can",
    schema: z.object({}),
    async run() {
      const own = await Deno.readTextFile(new URL("./own.txt", import.meta.url));
      const out = await new Deno.Command("sh", {
        args: ["-c", 'cat "$HOME/.config/svc/providers.json" 2>&1'],
        stdout: "piped",
      }).output();
      return own + "|" + new TextDecoder().decode(out.stdout);
    },
  });
}
`;

/** A layout whose HOME (set for the test) holds KEY and a global plugin granted `run: sh`. */
async function keyLayout() {
  const t = await makeLayout();
  await Deno.writeTextFile(
    join(t.home, ".config", "svc", "providers.json"),
    JSON.stringify({ openai: { api_key: KEY } }),
  );
  await writePlugin(t.globalDir, "catter", {
    "manifest.json": manifest("catter", { permissions: { run: ["sh"] } }),
    "mod.ts": ENTRY,
    "own.txt": "own file",
  });
  const home = Deno.env.get("HOME");
  Deno.env.set("HOME", t.home);
  return {
    t,
    settings: (config: Record<string, unknown>) =>
      sandboxSettings(ConfigSchema.parse(config), t.worktree),
    async [Symbol.asyncDispose]() {
      if (home === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", home);
      await t[Symbol.asyncDispose]();
    },
  };
}

async function catKeys(
  t: Awaited<ReturnType<typeof keyLayout>>["t"],
  sandbox: ReturnType<typeof sandboxSettings>,
): Promise<string> {
  const loaded = await loadPlugins({ ...t.roots, names: ["catter"], sandbox });
  try {
    assert.deepEqual(loaded.plugins.map((p) => [p.status, p.message]), [["loaded", ""]]);
    const out = await loaded.tools[0].run({}, testContext(t.worktree));
    return typeof out === "string" ? out : out.content;
  } finally {
    loaded.close();
  }
}

Deno.test({
  name: "a plugin granted run cannot have a program print svc's keys once its process is " +
    "sandboxed, while its own folder under ~/.config/svc/plugins stays readable",
  ignore: noBubblewrap !== undefined,
  fn: async () => {
    await using k = await keyLayout();
    const open = await catKeys(k.t, k.settings({ "sandbox.mode": "danger-full-access" }));
    assert.equal(open, `own file|${JSON.stringify({ openai: { api_key: KEY } })}`);
    const jailed = await catKeys(k.t, k.settings({}));
    assert.doesNotMatch(jailed, new RegExp(KEY));
    assert.match(jailed, /^own file\|cat: .*providers\.json: No such file or directory\n$/);
  },
});

Deno.test({
  name: "a plugin granted run does not load, and says why, when no sandbox can run and " +
    "sandbox.failIfUnavailable is true",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using k = await keyLayout();
    const settings = k.settings({});
    const empty = await Deno.makeTempDir({ prefix: "svc-plugin-nopath-" });
    const path = Deno.env.get("PATH");
    Deno.env.set("PATH", empty); // no bwrap on PATH: the probe runs again and finds none
    try {
      const loaded = await loadPlugins({ ...k.t.roots, names: ["catter"], sandbox: settings });
      loaded.close();
      assert.deepEqual(loaded.plugins.map((p) => p.status), ["errored"]);
      assert.match(
        loaded.plugins[0].message,
        /^Not loaded: its grant includes run \(programs it starts escape Deno's permissions\), so its process must run in svc's OS sandbox: refused: .*bubblewrap \(bwrap\) is not installed/,
      );
      assert.deepEqual(loaded.tools, []);
    } finally {
      Deno.env.set("PATH", path ?? "");
      await Deno.remove(empty);
    }
  },
});
