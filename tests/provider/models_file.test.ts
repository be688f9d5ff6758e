import assert from "node:assert/strict";
import { join } from "node:path";
import { imagesSetting } from "../../src/provider/models_file.ts";
import {
  isApproved,
  loadApprovedModels,
  modelsPath,
  recordApproval,
} from "../../src/provider/mod.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_models_" });
  try {
    await fn(join(dir, "svc"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

Deno.test("a model used again within a minute is not written again: models.json keeps its file", async () => {
  await withDir(async (dir) => {
    const first = await recordApproval("openai", "gpt-5", { dir });
    const before = await Deno.stat(modelsPath({ dir }));
    const again = await recordApproval("openai", "gpt-5", { dir });
    const after = await Deno.stat(modelsPath({ dir }));
    assert.deepEqual(again, first);
    assert.deepEqual([after.ino, after.mtime], [before.ino, before.mtime]);
    const later = await recordApproval("openai", "gpt-5", { dir, resolutionMs: 0 });
    assert.notEqual((await Deno.stat(modelsPath({ dir }))).ino, before.ino);
    assert.equal(later.added_at, first.added_at);
  });
});

Deno.test("recordApproval adds an entry once and bumps last_used", async () => {
  await withDir(async (dir) => {
    assert.equal(await isApproved("openai", "gpt-5", { dir }), false);
    const first = await recordApproval("openai", "gpt-5", { dir });
    await new Promise((r) => setTimeout(r, 5));
    const second = await recordApproval("openai", "gpt-5", { dir, resolutionMs: 0 });
    await recordApproval("anthropic", "gpt-5", { dir });
    assert.match(first.added_at, ISO);
    assert.equal(second.added_at, first.added_at);
    assert.ok(second.last_used > first.last_used);
    const stored = JSON.parse(await Deno.readTextFile(modelsPath({ dir })));
    assert.deepEqual(stored.map((e: Record<string, string>) => [e.provider, e.model]), [
      ["openai", "gpt-5"],
      ["anthropic", "gpt-5"],
    ]);
    assert.deepEqual(Object.keys(stored[0]).sort(), ["added_at", "last_used", "model", "provider"]);
    assert.equal(await isApproved("openai", "gpt-5", { dir }), true);
    assert.equal(await isApproved("openai", "gpt-4", { dir }), false);
  });
});

Deno.test("models.json entries in the old per-model key shape are read for provider and model", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      modelsPath({ dir }),
      JSON.stringify({
        "qwen3-coder-plus": {
          provider: "dashscope",
          api_key: "sk-old",
          base_url: "https://x.test",
        },
        "gpt-5": { provider: "openai", model: "gpt-5", api_key: "sk-2", added_at: "2025-01-01" },
        "broken": "nope",
      }),
    );
    assert.deepEqual(await loadApprovedModels({ dir }), {
      entries: [
        { provider: "dashscope", model: "qwen3-coder-plus", added_at: "", last_used: "" },
        { provider: "openai", model: "gpt-5", added_at: "2025-01-01", last_used: "" },
      ],
    });
    assert.equal(await isApproved("dashscope", "qwen3-coder-plus", { dir }), true);
  });
});

Deno.test("a corrupt models.json is reported and treated as empty", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(modelsPath({ dir }), "[{");
    const loaded = await loadApprovedModels({ dir });
    assert.deepEqual(loaded.entries, []);
    assert.match(loaded.warning!, /models\.json is not valid JSON/);
  });
});

Deno.test("an entry's images setting is read, kept when last_used is bumped, and absent for other models", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { recursive: true });
    const entry = { provider: "local", model: "llava", added_at: "", last_used: "", images: true };
    await Deno.writeTextFile(
      modelsPath({ dir }),
      JSON.stringify([entry, { ...entry, model: "t", images: "yes" }]),
    );
    assert.equal(await imagesSetting("local", "llava", { dir }), true);
    assert.equal(await imagesSetting("local", "t", { dir }), undefined);
    assert.equal(await imagesSetting("local", "other", { dir }), undefined);
    await recordApproval("local", "llava", { dir, resolutionMs: 0 });
    const stored = JSON.parse(await Deno.readTextFile(modelsPath({ dir })));
    assert.equal(stored[0].images, true);
    assert.equal(await imagesSetting("local", "llava", { dir }), true);
  });
});
