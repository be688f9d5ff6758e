import assert from "node:assert/strict";
import { join } from "node:path";
import {
  getKey,
  loadProviders,
  providersPath,
  removeEntry,
  setEntry,
} from "../../src/provider/mod.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_providers_" });
  try {
    await fn(join(dir, "config", "svc"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(path));

Deno.test("providers.json is created with mode 0600 and keeps one key per provider", async () => {
  await withDir(async (dir) => {
    await setEntry("openai", { api_key: "sk-1" }, { dir });
    await setEntry("openai", { api_key: "sk-2", base_url: "https://api.openai.com/v1/" }, { dir });
    await setEntry("lab", { base_url: "http://10.0.0.5:8000/", custom: true }, { dir });
    await setEntry("lab", { api_key: "lab-key" }, { dir });
    const path = providersPath({ dir });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(await readJson(path), {
      openai: { api_key: "sk-2" },
      lab: { base_url: "http://10.0.0.5:8000", custom: true, api_key: "lab-key" },
    });
    assert.deepEqual(
      [await getKey("openai", { dir }), await getKey("lab", { dir }), await getKey("x", { dir })],
      ["sk-2", "lab-key", ""],
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "providers.json",
      "providers.json.lock",
    ]);
  });
});

Deno.test("removeEntry drops a provider and reports whether it existed", async () => {
  await withDir(async (dir) => {
    await setEntry("openai", { api_key: "sk-1" }, { dir });
    await setEntry("anthropic", { api_key: "a-1" }, { dir });
    assert.deepEqual([await removeEntry("openai", { dir }), await removeEntry("openai", { dir })], [
      true,
      false,
    ]);
    assert.deepEqual(await readJson(providersPath({ dir })), { anthropic: { api_key: "a-1" } });
  });
});

Deno.test("a corrupt providers.json is reported, tolerated and set aside before saving", async () => {
  await withDir(async (dir) => {
    const path = providersPath({ dir });
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(path, '{"openai": {"api_key": "sk-old"', { mode: 0o600 });
    const loaded = await loadProviders({ dir });
    assert.deepEqual(loaded.entries, {});
    assert.match(loaded.warning!, new RegExp(`^${path} is not valid JSON`));
    assert.equal(await getKey("openai", { dir }), "");
    assert.equal(await Deno.readTextFile(path), '{"openai": {"api_key": "sk-old"');

    const saved = await setEntry("openai", { api_key: "sk-new" }, { dir });
    assert.match(
      saved.warning!,
      /was not valid JSON; kept a copy at .*providers\.json\.corrupt-\d+/,
    );
    const backup = [...Deno.readDirSync(dir)].find((e) => e.name.includes(".corrupt-"))!;
    const backupPath = join(dir, backup.name);
    assert.equal(await Deno.readTextFile(backupPath), '{"openai": {"api_key": "sk-old"');
    assert.equal((await Deno.stat(backupPath)).mode! & 0o777, 0o600);
    assert.deepEqual(await readJson(path), { openai: { api_key: "sk-new" } });
  });
});

Deno.test("a providers.json that is a FIFO is reported unread and moved aside on save", async () => {
  await withDir(async (dir) => {
    const path = providersPath({ dir });
    await Deno.mkdir(dir, { recursive: true });
    await new Deno.Command("mkfifo", { args: [path] }).output();
    const loaded = await loadProviders({ dir });
    assert.deepEqual(loaded, {
      path,
      entries: {},
      warning: `${path} is not a regular file`,
    });
    const saved = await setEntry("openai", { api_key: "sk-new" }, { dir });
    assert.match(
      saved.warning!,
      /providers\.json is not a regular file; moved it to .*providers\.json\.corrupt-\d+ and wrote/,
    );
    const backup = [...Deno.readDirSync(dir)].find((e) => e.name.includes(".corrupt-"))!;
    assert.equal((await Deno.lstat(join(dir, backup.name))).isFile, false);
    assert.deepEqual(await readJson(path), { openai: { api_key: "sk-new" } });
  });
});

Deno.test("concurrent saves of providers.json all land and leave no temp files", async () => {
  await withDir(async (dir) => {
    const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
    await Promise.all(names.map((n) => setEntry(n, { api_key: `key-${n}` }, { dir })));
    const stored = await readJson(providersPath({ dir }));
    assert.deepEqual(
      stored,
      Object.fromEntries(names.map((n) => [n, { api_key: `key-${n}` }])),
    );
    assert.deepEqual([...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".tmp")), []);
  });
});
