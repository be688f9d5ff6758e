import assert from "node:assert/strict";
import { Runtime, type RuntimeInit } from "../../src/runtime/runtime.ts";
import { setEntry } from "../../src/provider/mod.ts";

const LOCAL = "http://127.0.0.1:8000";

/** A temp HOME (an openai and an anthropic key stored) with `global` and a worktree `local`. */
async function withConfig(
  files: { global?: unknown; local?: unknown },
  fn: (
    load: (init?: RuntimeInit) => Promise<{ runtime: Runtime; told: string[] }>,
  ) => Promise<void>,
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  const opened: Runtime[] = [];
  try {
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
    await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
    if (files.global) {
      await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(files.global));
    }
    if (files.local) {
      await Deno.writeTextFile(`${worktree}/.svc/config.json`, JSON.stringify(files.local));
    }
    await setEntry("openai", { api_key: "sk-openai" });
    await setEntry("anthropic", { api_key: "sk-anthropic" });
    await fn(async (init = {}) => {
      const told: string[] = [];
      const runtime = await Runtime.load({ path: worktree, warn: (w) => told.push(w), ...init });
      opened.push(runtime);
      return { runtime, told };
    });
  } finally {
    opened.forEach((r) => r.plugins.close());
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
}

const where = (
  c: { provider: string; baseUrl: string; model: string; apiKey: string },
) => [c.provider, c.baseUrl, c.model, c.apiKey];

const moved = (ref: string, provider: string) =>
  `the model ref ${ref} now runs on ${provider} (its stored key, the model approval gate), not ` +
  `on generic at ${LOCAL}: a provider/model ref uses the provider it names unless --base-url, or ` +
  "base_url in the ref's own config layer, names the server (docs/providers.md)";

Deno.test("with a local base_url, /model, a type's and --model's provider/model ref use that provider, its key and the approval gate, and say so once ever", async () => {
  await withConfig({ global: { base_url: LOCAL, model: "qwen3:8b" } }, async (load) => {
    const gated = (await load()).runtime;
    await assert.rejects(gated.connect({ model: "openai/gpt-x", modelFrom: "user" }), {
      message: /^model not approved: openai\/gpt-x comes from the config/,
    });
    const { runtime, told } = await load({ approveModel: true });
    const user = await runtime.connect({ model: "openai/gpt-x", modelFrom: "user" });
    await runtime.connect({ model: "openai/gpt-x", modelFrom: "user" });
    const type = await runtime.connect({ model: "anthropic/claude-x", modelFrom: "type" });
    const base = await runtime.connect();
    assert.deepEqual([where(user), where(type), where(base)], [
      ["openai", "https://api.openai.com", "gpt-x", "sk-openai"],
      ["anthropic", "https://api.anthropic.com", "claude-x", "sk-anthropic"],
      ["generic", LOCAL, "qwen3:8b", ""],
    ]);
    assert.deepEqual(told, [
      moved("openai/gpt-x", "openai"),
      moved("anthropic/claude-x", "anthropic"),
    ]);
    // The next run (here a new runtime with --model) does not say it again.
    const again = await load({ model: "openai/gpt-x" });
    const flag = await again.runtime.connect();
    assert.deepEqual(where(flag), ["openai", "https://api.openai.com", "gpt-x", "sk-openai"]);
    assert.deepEqual(again.told, []);
  });
});

Deno.test("a ref stays the server's own model id where --base-url or base_url in its own layer names the server", async () => {
  await withConfig({ global: { base_url: LOCAL, model: "openai/gpt-oss-20b" } }, async (load) => {
    const same = await (await load()).runtime.connect();
    assert.deepEqual(where(same), ["generic", LOCAL, "openai/gpt-oss-20b", ""]);
    const { runtime, told } = await load({ baseUrl: LOCAL });
    const flag = await runtime.connect({ model: "anthropic/claude-x", modelFrom: "user" });
    assert.deepEqual(where(flag), ["generic", LOCAL, "anthropic/claude-x", ""]);
    const routed = await runtime.connect({
      provider: "openrouter",
      model: "anthropic/claude-x",
      modelFrom: "type",
      approveModel: true,
    });
    assert.deepEqual(where(routed), [
      "openrouter",
      "https://openrouter.ai/api",
      "anthropic/claude-x",
      "",
    ]);
    // Nothing moved; only openrouter's missing key is said.
    assert.deepEqual(told, [
      "No API key stored for openrouter; run /connect openrouter (or svc connect openrouter) to " +
      "add one",
    ]);
  });
  // The ref in the worktree's layer, the server in the global one: the ref's provider.
  await withConfig(
    { global: { base_url: LOCAL }, local: { model: "anthropic/claude-x" } },
    async (load) => {
      const { runtime } = await load({ approveModel: true });
      assert.deepEqual(where(await runtime.connect()), [
        "anthropic",
        "https://api.anthropic.com",
        "claude-x",
        "sk-anthropic",
      ]);
    },
  );
});
