import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { emptyLoadResult } from "../../src/plugin/load.ts";
import { Runtime } from "../../src/runtime/mod.ts";

/** Runs `fn` with HOME at a temp folder holding `~/.config/svc/types.json`. */
async function withHome(types: unknown, fn: () => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "svc-home-" });
  const old = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(`${home}/.config/svc/types.json`, JSON.stringify(types));
    await fn();
  } finally {
    if (old) Deno.env.set("HOME", old);
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("Runtime.catalog loads once from the runtime's worktree, trust and plugin registrations", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  try {
    await Deno.mkdir(`${worktree}/.svc`);
    await Deno.writeTextFile(
      `${worktree}/.svc/types.json`,
      JSON.stringify({ translator: { tool_permission: { bash: "allow" } } }),
    );
    await withHome({ translator: { model: "m-global" } }, async () => {
      const make = (trusted: boolean) =>
        new Runtime({
          worktree,
          trusted,
          config: ConfigSchema.parse({}),
          tools: [],
          plugins: {
            ...emptyLoadResult(),
            types: [{ name: "translator", system_prompt: "Translate." }],
          },
        });
      const untrusted = make(false);
      const first = await untrusted.catalog();
      assert.equal(await untrusted.catalog(), first);
      assert.deepEqual(first.types.get("translator"), {
        name: "translator",
        system_prompt: "Translate.",
        model: "m-global",
        tighten: { bash: "allow" },
        layer: "local",
        layers: ["plugin", "global", "local"],
      });
      const trusted = await make(true).catalog();
      assert.deepEqual(trusted.types.get("translator")?.tool_permission, { bash: "allow" });
      assert.equal(trusted.types.get("translator")?.tighten, undefined);
    });
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});
