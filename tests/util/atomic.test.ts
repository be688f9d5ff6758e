import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "../../src/util/atomic.ts";

/** A temp folder removed on dispose. */
async function tempDir() {
  const path = await Deno.makeTempDir({ prefix: "svc_atomic_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o7777;

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

Deno.test("writeFileAtomic replaces a file and leaves no temp file", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = join(dir, "a.txt");
  await Deno.writeTextFile(path, "old");
  await writeFileAtomic(path, "new");
  await writeFileAtomic(join(dir, "b.bin"), new Uint8Array([1, 2]));
  assert.deepEqual(
    [await Deno.readTextFile(path), [...await Deno.readFile(join(dir, "b.bin"))]],
    ["new", [1, 2]],
  );
  assert.deepEqual(await names(dir), ["a.txt", "b.bin"]);
});

Deno.test("writeFileAtomic with keepMode keeps a file's mode exactly, umask aside", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = join(dir, "run.sh");
  await Deno.writeTextFile(path, "old");
  await Deno.chmod(path, 0o775);
  const umask = Deno.umask(0o077);
  try {
    await writeFileAtomic(path, "new", { mode: 0o666, keepMode: true });
  } finally {
    Deno.umask(umask);
  }
  assert.deepEqual([await Deno.readTextFile(path), await modeOf(path)], ["new", 0o775]);
});

Deno.test("writeFileAtomic gives a new file `mode` narrowed by the umask", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const umask = Deno.umask(0o027);
  try {
    await writeFileAtomic(join(dir, "kept.txt"), "x", { mode: 0o666, keepMode: true });
    await writeFileAtomic(join(dir, "plain.txt"), "x");
  } finally {
    Deno.umask(umask);
  }
  assert.deepEqual(
    [await modeOf(join(dir, "kept.txt")), await modeOf(join(dir, "plain.txt"))],
    [0o640, 0o640],
  );
});

Deno.test("writeFileAtomic without keepMode does not keep the old mode", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  const path = join(dir, "a.txt");
  await Deno.writeTextFile(path, "old");
  await Deno.chmod(path, 0o600);
  await writeFileAtomic(path, "new", { mode: 0o640 });
  assert.equal(await modeOf(path), 0o640 & ~Deno.umask());
});

Deno.test("writeFileAtomic rejects a missing folder or a failed rename, leaving nothing behind", async () => {
  await using temp = await tempDir();
  const dir = temp.path;
  await assert.rejects(
    () => writeFileAtomic(join(dir, "gone", "a.txt"), "x"),
    Deno.errors.NotFound,
  );
  await Deno.mkdir(join(dir, "sub"));
  await Deno.writeTextFile(join(dir, "sub", "x"), "x");
  await assert.rejects(() => writeFileAtomic(join(dir, "sub"), "x", { keepMode: true }));
  assert.deepEqual(await names(dir), ["sub"]);
});
