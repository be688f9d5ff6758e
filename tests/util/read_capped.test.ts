import assert from "node:assert/strict";
import { readTextCapped, SYNC_READ_BYTES, UnreadableFileError } from "../../src/util/fs.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_capped_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const mkfifo = (path: string) => new Deno.Command("mkfifo", { args: [path] }).output();

Deno.test("readTextCapped reads a file within the cap whole", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "héllo\n");
    assert.deepEqual(await readTextCapped(`${dir}/a.txt`, 7), {
      text: "héllo\n",
      truncated: false,
    });
    await Deno.writeTextFile(`${dir}/empty.txt`, "");
    assert.deepEqual(await readTextCapped(`${dir}/empty.txt`, 7), { text: "", truncated: false });
  });
});

Deno.test("readTextCapped refuses a file over the cap, or returns its head when asked", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/big.txt`, "x".repeat(2000));
    await assert.rejects(
      () => readTextCapped(`${dir}/big.txt`, 1024),
      new UnreadableFileError("larger than the 1 KiB limit (2000 bytes)"),
    );
    assert.deepEqual(await readTextCapped(`${dir}/big.txt`, 1024, { head: true }), {
      text: "x".repeat(1024),
      truncated: true,
    });
  });
});

Deno.test("readTextCapped reads a file past the synchronous size the same way, whole or its head", async () => {
  await withDir(async (dir) => {
    // Multi-byte characters across the 1 MiB read size and the sync limit.
    const text = "é".repeat(SYNC_READ_BYTES) + "z".repeat(1 << 20);
    await Deno.writeTextFile(`${dir}/large.txt`, text);
    const size = new TextEncoder().encode(text).length;
    assert.deepEqual(await readTextCapped(`${dir}/large.txt`, size), { text, truncated: false });
    assert.deepEqual(
      await readTextCapped(`${dir}/large.txt`, 2 * SYNC_READ_BYTES, { head: true }),
      {
        text: "é".repeat(SYNC_READ_BYTES),
        truncated: true,
      },
    );
    await assert.rejects(
      () => readTextCapped(`${dir}/large.txt`, 1 << 20),
      new UnreadableFileError(`larger than the 1 MiB limit (${size} bytes)`),
    );
  });
});

Deno.test("readTextCapped refuses FIFOs, devices and folders without blocking", async () => {
  await withDir(async (dir) => {
    await mkfifo(`${dir}/pipe`);
    await Deno.symlink("/dev/zero", `${dir}/zero`);
    for (const path of [`${dir}/pipe`, `${dir}/zero`, dir]) {
      await assert.rejects(
        () => readTextCapped(path, 1024, { head: true }),
        new UnreadableFileError("not a regular file"),
      );
    }
  });
});

Deno.test("readTextCapped reports a missing file as NotFound", async () => {
  await withDir(async (dir) => {
    await assert.rejects(() => readTextCapped(`${dir}/nope`, 10), Deno.errors.NotFound);
  });
});
