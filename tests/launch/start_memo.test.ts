import assert from "node:assert/strict";
import { MEMO_ENTRIES_PER_KIND, StartMemo } from "../../src/launch/start_memo.ts";

async function tempDir(): Promise<AsyncDisposable & { dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "svc-memo-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("a start memo of a build keeps what it remembers across opens, in its own file", async () => {
  await using t = await tempDir();
  const memo = await StartMemo.open(t.dir, "b1");
  assert.equal(memo.enabled, true);
  await memo.remember("config", [["{}", { ok: true, config: { max_tokens: 8192 } }]]);
  const again = await StartMemo.open(t.dir, "b1");
  assert.deepEqual(again.get("config", "{}"), { ok: true, config: { max_tokens: 8192 } });
  assert.equal(again.get("config", '{"model":"m"}'), undefined);
  assert.equal(again.get("manifest", "{}"), undefined);
  assert.deepEqual([...Deno.readDirSync(t.dir)].map((e) => e.name), ["b1.json"]);
  // Owner-only: a config may hold an MCP server's headers.
  assert.equal((await Deno.stat(`${t.dir}/b1.json`)).mode! & 0o777, 0o600);
});

Deno.test("remembering in parallel keeps every value in the file", async () => {
  await using t = await tempDir();
  const memo = await StartMemo.open(t.dir, "b1");
  await Promise.all(
    Array.from({ length: 8 }, (_, i) => memo.remember(`kind${i % 2}`, [[`k${i}`, i]])),
  );
  const reread = await StartMemo.open(t.dir, "b1");
  assert.deepEqual(
    Array.from({ length: 8 }, (_, i) => reread.get(`kind${i % 2}`, `k${i}`)),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
});

Deno.test("a start memo never reuses another build's values", async () => {
  await using t = await tempDir();
  await (await StartMemo.open(t.dir, "b1")).remember("config", [["{}", 1]]);
  assert.equal((await StartMemo.open(t.dir, "b2")).get("config", "{}"), undefined);
  // A file renamed to another build's name still says which build wrote it.
  await Deno.rename(`${t.dir}/b1.json`, `${t.dir}/b2.json`);
  assert.equal((await StartMemo.open(t.dir, "b2")).get("config", "{}"), undefined);
});

Deno.test("a start memo without a build id (the source tree) remembers and writes nothing", async () => {
  await using t = await tempDir();
  const memo = await StartMemo.open(t.dir, null);
  assert.equal(memo.enabled, false);
  await memo.remember("config", [["{}", 1]]);
  assert.equal(memo.get("config", "{}"), undefined);
  assert.deepEqual([...Deno.readDirSync(t.dir)], []);
});

Deno.test("a damaged or foreign start memo file is ignored and replaced on the next write", async () => {
  await using t = await tempDir();
  for (const text of ["{not json", "[]", '{"build":"b1","kinds":{"config":[1]}}', "\0\0\0"]) {
    await Deno.writeTextFile(`${t.dir}/b1.json`, text);
    const memo = await StartMemo.open(t.dir, "b1");
    assert.equal(memo.get("config", "0"), undefined, text);
  }
  const memo = await StartMemo.open(t.dir, "b1");
  await memo.remember("config", [["k", "v"]]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${t.dir}/b1.json`)), {
    build: "b1",
    kinds: { config: { k: "v" } },
  });
});

Deno.test("a start memo keeps the newest entries of a kind and leaves other kinds alone", async () => {
  await using t = await tempDir();
  const memo = await StartMemo.open(t.dir, "b1");
  await memo.remember("manifest", [["m", true]]);
  const many = Array.from({ length: MEMO_ENTRIES_PER_KIND + 5 }, (_, i) => [`k${i}`, i] as const);
  for (const [key, value] of many) await memo.remember("config", [[key, value]]);
  const kept = (m: StartMemo) =>
    Array.from({ length: 60 }, (_, i) => `k${i}`).filter((key) =>
      m.get("config", key) !== undefined
    );
  assert.deepEqual(kept(await StartMemo.open(t.dir, "b1")), many.slice(5).map(([key]) => key));
  // Remembered again, k10 becomes the newest and outlives ten newer entries.
  await memo.remember("config", [["k10", "again"]]);
  await memo.remember("config", Array.from({ length: 10 }, (_, i) => [`k${40 + i}`, i]));
  const reread = await StartMemo.open(t.dir, "b1");
  assert.deepEqual(
    kept(reread),
    [
      ...Array.from({ length: 21 }, (_, i) => `k${16 + i}`).filter((k) => k !== "k10"),
      "k10",
      ...Array.from({ length: 10 }, (_, i) => `k${40 + i}`),
    ].sort(byIndex),
  );
  assert.equal(reread.get("config", "k10"), "again");
  assert.equal(reread.get("manifest", "m"), true);
});

function byIndex(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}

Deno.test("a start memo in a folder it cannot write stays usable for the process", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(`${t.dir}/file`, "");
  // The memo's folder would be under a regular file: every write fails.
  const memo = await StartMemo.open(`${t.dir}/file/start_cache`, "b1");
  await memo.remember("config", [["{}", 1]]);
  assert.equal(memo.get("config", "{}"), 1);
});
