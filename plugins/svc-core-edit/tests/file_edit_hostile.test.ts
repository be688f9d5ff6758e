import assert from "node:assert/strict";
import { fileEdit } from "../src/file_edit.ts";
import { context, worktree } from "./_context.ts";

Deno.test("file_edit refuses binary, non-UTF-8, missing, directory and NUL paths", async () => {
  await using w = await worktree({
    "bin.dat": new Uint8Array([97, 0, 98]),
    "latin1.txt": new Uint8Array([99, 97, 102, 0xe9]),
    "dir/x": "",
  });
  const ctx = context(w.root);
  const edit = (path: string) => fileEdit.run({ path, old: "a", new: "b" }, ctx);
  assert.deepEqual(await edit("bin.dat"), {
    content: `Cannot edit ${w.path("bin.dat")}: binary file`,
    ok: false,
  });
  assert.deepEqual(await edit("latin1.txt"), {
    content: `Cannot edit ${w.path("latin1.txt")}: not valid UTF-8 text`,
    ok: false,
  });
  assert.deepEqual(await edit("missing.txt"), {
    content: `Path not found: ${w.path("missing.txt")}`,
    ok: false,
  });
  assert.deepEqual(await edit("dir"), { content: `${w.path("dir")} is a directory`, ok: false });
  assert.deepEqual(await edit("a\0b"), { content: "Path contains a NUL byte", ok: false });
});

Deno.test("file_edit caps the diff preview at 40 lines", async () => {
  const body = Array.from({ length: 100 }, (_, i) => `row ${i}`).join("\n") + "\n";
  await using w = await worktree({ "rows.txt": body });
  const out = await fileEdit.run(
    { path: "rows.txt", old: "row", new: "line", count: 0 },
    context(w.root),
  );
  const status = (out as { status: string }).status.split("\n");
  assert.equal(status.length, 41);
  assert.equal(status[40], "[... 163 more diff lines]");
  assert.equal(
    (out as { content: string }).content,
    `Replaced 100 occurrences in ${w.path("rows.txt")} (lines 1, 2, 3, 4, 5, ...)`,
  );
});

Deno.test("file_edit of one line in a huge file is quick and previews the right hunk", async () => {
  const body = Array.from({ length: 300_000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await using w = await worktree({ "huge.txt": body });
  const started = performance.now();
  const out = await fileEdit.run(
    { path: "huge.txt", old: "line 250000\n", new: "changed\n" },
    context(w.root),
  );
  assert.ok(performance.now() - started < 5000);
  assert.deepEqual(out, {
    content: `Replaced 1 occurrence in ${w.path("huge.txt")} (line 250000)`,
    status: [
      `--- ${w.path("huge.txt")}`,
      `+++ ${w.path("huge.txt")}`,
      "@@ -249999,3 +249999,3 @@",
      " line 249999",
      "-line 250000",
      "+changed",
      " line 250001",
    ].join("\n"),
  });
});

Deno.test("file_edit falls back to a summary when a rewrite is too large to diff", async () => {
  const body = Array.from({ length: 20_000 }, (_, i) => `v${i}`).join("\n");
  await using w = await worktree({ "many.txt": body });
  const out = await fileEdit.run(
    { path: "many.txt", old: "v", new: "w", count: 0 },
    context(w.root),
  );
  assert.equal(
    (out as { status: string }).status,
    `${w.path("many.txt")}: changed (diff too large to preview)`,
  );
});
