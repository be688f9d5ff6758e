import assert from "node:assert/strict";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { followFile, rotateIfLarge, tailLines } from "../../src/fleet/logs.ts";

Deno.test("a log past its size is copied to .1 (older to .2) and truncated in place, and an append-mode writer keeps writing to it", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "agent.log");
  const fd = openSync(path, "a"); // how an agent holds its log
  try {
    writeSync(fd, "first\n".repeat(300));
    assert.equal(await rotateIfLarge(path, 4096), false);
    writeSync(fd, "second\n".repeat(400));
    assert.equal(await rotateIfLarge(path, 4096), true);
    assert.equal((await Deno.readTextFile(path)).length, 0);
    writeSync(fd, "after\n");
    assert.equal(await Deno.readTextFile(path), "after\n");
    assert.equal((await Deno.readTextFile(`${path}.1`)).length, 6 * 300 + 7 * 400);
    writeSync(fd, "third\n".repeat(1000));
    assert.equal(await rotateIfLarge(path, 4096), true);
    assert.match(await Deno.readTextFile(`${path}.2`), /^first\n/);
    assert.match(await Deno.readTextFile(`${path}.1`), /^after\nthird\n/);
  } finally {
    closeSync(fd);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tailLines returns the last n lines of a log larger than its read chunk", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "big.log");
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  try {
    assert.deepEqual(await tailLines(path, 3), ["line 19997", "line 19998", "line 19999"]);
    assert.deepEqual(await tailLines(path, 0), []);
    assert.deepEqual((await tailLines(path, 15_000)).length, 15_000);
    await Deno.writeTextFile(path, "only\n");
    assert.deepEqual(await tailLines(path, 50), ["only"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("following a log prints what is appended and starts over when the log is rotated", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "f.log");
  await Deno.writeTextFile(path, "old\n");
  const controller = new AbortController();
  let seen = "";
  const following = followFile(path, {
    offset: 4,
    write: (text) => {
      seen += text;
    },
    signal: controller.signal,
    pollMs: 20,
  });
  const until = async (text: string) => {
    const deadline = Date.now() + 5_000;
    while (!seen.endsWith(text) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  try {
    await Deno.writeTextFile(path, "one\n", { append: true });
    await until("one\n");
    await Deno.truncate(path, 0);
    await Deno.writeTextFile(path, "two\n", { append: true });
    await until("two\n");
    assert.equal(seen, "one\ntwo\n");
  } finally {
    controller.abort();
    await following;
    await Deno.remove(dir, { recursive: true });
  }
});
