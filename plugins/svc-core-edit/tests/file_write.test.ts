import assert from "node:assert/strict";
import { fileWrite } from "../src/file_write.ts";
import { context, names, worktree } from "./_context.ts";

Deno.test("file_write creates a file and its parent directories", async () => {
  await using w = await worktree();
  assert.equal(
    await fileWrite.run({ path: "a/b/new.txt", content: "one\ntwo\n" }, context(w.root)),
    `Created ${w.path("a/b/new.txt")} (2 lines, 8 chars)`,
  );
  assert.equal(await w.read("a/b/new.txt"), "one\ntwo\n");
  assert.deepEqual(await names(w.path("a/b")), ["new.txt"]);
});

Deno.test("file_write overwrites in place, keeping the file mode", async () => {
  await using w = await worktree({ "run.sh": "old\n" });
  await Deno.chmod(w.path("run.sh"), 0o751);
  assert.equal(
    await fileWrite.run(
      { path: "run.sh", content: "#!/bin/sh\necho hi", mode: "write" },
      context(w.root),
    ),
    `Overwritten ${w.path("run.sh")} (2 lines, 17 chars)`,
  );
  assert.equal(await w.read("run.sh"), "#!/bin/sh\necho hi");
  assert.equal((await Deno.stat(w.path("run.sh"))).mode! & 0o777, 0o751);
  assert.deepEqual(await names(w.root), ["run.sh"]);
});

Deno.test("file_write appends, and append to a missing file creates it", async () => {
  await using w = await worktree({ "log.txt": "first\n" });
  assert.equal(
    await fileWrite.run({ path: "log.txt", content: "second\n", mode: "append" }, context(w.root)),
    `Appended ${w.path("log.txt")} (1 line, 7 chars)`,
  );
  assert.equal(await w.read("log.txt"), "first\nsecond\n");
  assert.equal(
    await fileWrite.run({ path: "fresh.txt", content: "x", mode: "append" }, context(w.root)),
    `Created ${w.path("fresh.txt")} (1 line, 1 char)`,
  );
});

Deno.test("file_write of empty content creates an empty file", async () => {
  await using w = await worktree();
  assert.equal(
    await fileWrite.run({ path: "empty", content: "" }, context(w.root)),
    `Created ${w.path("empty")} (0 lines, 0 chars)`,
  );
  assert.equal(await w.read("empty"), "");
});

Deno.test("file_write through a symlink updates the target and keeps the link", async () => {
  await using w = await worktree({ "real/config.json": "{}" });
  await Deno.symlink("real/config.json", w.path("config.json"));
  await Deno.symlink("real/new.txt", w.path("dangling"));
  const ctx = context(w.root);
  await fileWrite.run({ path: "config.json", content: '{"a":1}' }, ctx);
  assert.equal((await Deno.lstat(w.path("config.json"))).isSymlink, true);
  assert.equal(await w.read("real/config.json"), '{"a":1}');
  assert.equal(
    await fileWrite.run({ path: "dangling", content: "made" }, ctx),
    `Created ${w.path("dangling")} (1 line, 4 chars)`,
  );
  assert.equal(await w.read("real/new.txt"), "made");
});

Deno.test("file_write refuses directories, NUL bytes, files in the way and link loops", async () => {
  await using w = await worktree({ "dir/x": "", "file.txt": "f" });
  await Deno.symlink("loop-b", w.path("loop-a"));
  await Deno.symlink("loop-a", w.path("loop-b"));
  const ctx = context(w.root);
  assert.deepEqual(await fileWrite.run({ path: "dir", content: "x" }, ctx), {
    content: `${w.path("dir")} is a directory`,
    ok: false,
  });
  assert.deepEqual(await fileWrite.run({ path: "a\0b", content: "x" }, ctx), {
    content: "Path contains a NUL byte",
    ok: false,
  });
  assert.deepEqual(await fileWrite.run({ path: "file.txt/child.txt", content: "x" }, ctx), {
    content: `Cannot write ${
      w.path("file.txt/child.txt")
    }: a file is in the way of a parent directory`,
    ok: false,
  });
  assert.deepEqual(await fileWrite.run({ path: "loop-a", content: "x" }, ctx), {
    content: `Symbolic link loop at ${w.path("loop-a")}`,
    ok: false,
  });
  assert.equal(await w.read("file.txt"), "f");
});

Deno.test("file_write replaces atomically: a concurrent reader sees only whole versions", async () => {
  await using w = await worktree();
  const versions = ["a", "b", "c", "d"].map((c) => c.repeat(2_000_000));
  const ctx = context(w.root);
  await fileWrite.run({ path: "big.txt", content: versions[0] }, ctx);
  let writing = true;
  const seen = new Set<number>();
  let reads = 0;
  const reader = (async () => {
    while (writing) {
      const text = await Deno.readTextFile(w.path("big.txt"));
      assert.ok(versions.includes(text), `torn read of ${text.length} chars`);
      seen.add(text.length);
      reads++;
    }
  })();
  for (const version of versions.slice(1)) {
    await fileWrite.run({ path: "big.txt", content: version }, ctx);
  }
  writing = false;
  await reader;
  assert.deepEqual([...seen], [2_000_000]);
  assert.ok(reads > 1, `only ${reads} reads overlapped the writes`);
  assert.deepEqual(await names(w.root), ["big.txt"]);
});

Deno.test("file_write stops before writing when the turn is cancelled", async () => {
  await using w = await worktree();
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(() =>
    fileWrite.run({ path: "x.txt", content: "x" }, context(w.root, controller.signal))
  );
  assert.deepEqual(await names(w.root), []);
});
