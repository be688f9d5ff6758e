import assert from "node:assert/strict";
import { Runtime } from "../../src/runtime/runtime.ts";
import { setEntry } from "../../src/provider/mod.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { withWorktree } from "../_support/temp_home.ts";

Deno.test("a headless runtime tells its front-end once that no API key is stored for the provider", async () => {
  await withWorktree({ global: { provider: "openai", model: "gpt-x" } }, async (worktree) => {
    const told: string[] = [];
    const runtime = await Runtime.load({ path: worktree, warn: (w) => told.push(w) });
    try {
      await runtime.engine({ headless: true });
      await runtime.engine({ headless: true });
      assert.deepEqual(told, [
        "No API key stored for openai; run /connect openai (or svc connect openai) to add one",
      ]);
    } finally {
      runtime.plugins.close();
    }
  });
});

Deno.test("a headless runtime says a stored key was withheld from an untrusted base_url", async () => {
  const fake = await startFakeProvider([{ text: "hi" }]);
  try {
    await withWorktree(
      { local: { provider: "openai", base_url: fake.url, model: "m" } },
      async (wt) => {
        await setEntry("openai", { api_key: "sk-stored" });
        const told: string[] = [];
        const runtime = await Runtime.load({ path: wt, warn: (w) => told.push(w) });
        try {
          await runtime.engine({ headless: true });
          assert.deepEqual(told, [
            `not sending the stored openai API key to ${fake.url}: that address comes from ` +
            `${wt}/.svc/config.json of a worktree that is not trusted (run svc trust to trust it)`,
          ]);
        } finally {
          runtime.plugins.close();
        }
      },
    );
  } finally {
    await fake.close();
  }
});

Deno.test("--base-url without --provider names the server: not the config's provider or its key", async () => {
  await withWorktree({ global: { provider: "openai", model: "m" } }, async (worktree) => {
    await setEntry("openai", { api_key: "sk-stored" });
    const runtime = await Runtime.load({ path: worktree, baseUrl: "http://127.0.0.1:9/v1" });
    try {
      const { provider, baseUrl, model, apiKey } = await runtime.connect();
      assert.deepEqual({ provider, baseUrl, model, apiKey }, {
        provider: "generic",
        baseUrl: "http://127.0.0.1:9",
        model: "m",
        apiKey: "",
      });
    } finally {
      runtime.plugins.close();
    }
  });
});
