import assert from "node:assert/strict";
import { readTextCapped, UnreadableFileError } from "../../src/util/fs.ts";

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
