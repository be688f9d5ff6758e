import assert from "node:assert/strict";
import { join } from "node:path";
import { fileRead } from "../src/file_read.ts";
import { context, text, worktree } from "./_context.ts";

const lines = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n");

Deno.test("file_read shows a header with line and char counts, then numbered lines", async () => {
  await using w = await worktree({ "src/a.ts": "const a = 1;\n\nexport { a };\n" });
  assert.equal(
    await fileRead.run({ path: "src/a.ts" }, context(w.root)),
    "src/a.ts: 3 lines, 28 chars\n1\tconst a = 1;\n2\t\n3\texport { a };",
  );
});

Deno.test("file_read pages with offset and limit and names the next offset", async () => {
  await using w = await worktree({ "big.txt": lines(12) + "\n" });
  assert.equal(
    await fileRead.run({ path: "big.txt", offset: 9, limit: 2 }, context(w.root)),
    "big.txt: 12 lines, 87 chars; showing lines 9-10\n" +
      " 9\tline 9\n10\tline 10\n[... 2 more lines; continue with offset=11]",
  );
  assert.equal(
    await fileRead.run({ path: "big.txt", offset: 11 }, context(w.root)),
    "big.txt: 12 lines, 87 chars; showing lines 11-12\n11\tline 11\n12\tline 12",
  );
});

Deno.test("file_read with limit 0 returns only the header", async () => {
  await using w = await worktree({ "a.txt": "one\ntwo" });
  assert.equal(
    await fileRead.run({ path: "a.txt", limit: 0 }, context(w.root)),
    "a.txt: 2 lines, 7 chars",
  );
});

Deno.test("file_read reports an offset past the end as an error", async () => {
  await using w = await worktree({ "a.txt": "one\ntwo\n" });
  assert.deepEqual(await fileRead.run({ path: "a.txt", offset: 5 }, context(w.root)), {
    content: "Offset 5 is past the end of a.txt (2 lines)",
    ok: false,
  });
});

Deno.test("file_read shows CRLF lines without the carriage return but counts it", async () => {
  await using w = await worktree({ "win.txt": "a\r\nb\r\n" });
  assert.equal(
    await fileRead.run({ path: "win.txt" }, context(w.root)),
    "win.txt: 2 lines, 6 chars\n1\ta\n2\tb",
  );
});

Deno.test("file_read of an empty file is the header alone", async () => {
  await using w = await worktree({ "empty.txt": "" });
  assert.equal(
    await fileRead.run({ path: "empty.txt" }, context(w.root)),
    "empty.txt: 0 lines, 0 chars",
  );
});

Deno.test("file_read accepts an absolute path and shows it as given", async () => {
  await using w = await worktree({ "a.txt": "x" });
  const outside = await Deno.makeTempFile({ suffix: ".txt" });
  try {
    await Deno.writeTextFile(outside, "hi\n");
    assert.equal(
      await fileRead.run({ path: outside }, context(w.root)),
      `${outside}: 1 line, 3 chars\n1\thi`,
    );
  } finally {
    await Deno.remove(outside);
  }
});

Deno.test("file_read of a huge file stays under tool_max_result_chars and pages on", async () => {
  const body = Array.from({ length: 200_000 }, (_, i) => `row ${i + 1} ${"z".repeat(40)}`).join(
    "\n",
  );
  await using w = await worktree({ "huge.log": body });
  const first = text(await fileRead.run({ path: "huge.log" }, context(w.root)));
  assert.ok(first.length <= 100_000, `length ${first.length}`);
  const header = `huge.log: 200000 lines, ${body.length} chars; showing lines 1-`;
  assert.ok(first.startsWith(header), first.slice(0, 80));
  const last = first.split("\n").at(-2)!;
  const next = Number(last.split("\t")[0]) + 1;
  assert.equal(
    first.split("\n").at(-1),
    `[... ${200_001 - next} more lines; continue with offset=${next}]`,
  );
  const second = text(
    await fileRead.run({ path: "huge.log", offset: next, limit: 1 }, context(w.root)),
  );
  assert.equal(second.split("\n")[1], `${next}\trow ${next} ${"z".repeat(40)}`);
});

Deno.test("file_read cuts a single line longer than the budget", async () => {
  await using w = await worktree({ "min.js": "x".repeat(50_000) + "\nsecond\n" });
  assert.equal(
    await fileRead.run({ path: "min.js" }, context(w.root, { tool_max_result_chars: 1000 })),
    `min.js: 2 lines, 50008 chars; showing lines 1-1\n1\t${
      "x".repeat(600)
    } [line cut at 600 chars]\n` +
      "[... 1 more line; continue with offset=2]",
  );
});

Deno.test("file_read reads everything when tool_max_result_chars is 0", async () => {
  await using w = await worktree({ "a.txt": lines(3000) });
  const out = text(
    await fileRead.run({ path: "a.txt" }, context(w.root, { tool_max_result_chars: 0 })),
  );
  assert.equal(out.split("\n").length, 3001);
});

Deno.test("file_read refuses a binary file", async () => {
  await using w = await worktree({
    "img.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  });
  assert.deepEqual(await fileRead.run({ path: "img.png" }, context(w.root)), {
    content: "Cannot read img.png: binary file (8 B)",
    ok: false,
  });
});

Deno.test("file_read reports missing files, directories, NUL bytes and link loops", async () => {
  await using w = await worktree({ "dir/a.txt": "a" });
  await Deno.symlink("loop-b", join(w.root, "loop-a"));
  await Deno.symlink("loop-a", join(w.root, "loop-b"));
  const ctx = context(w.root);
  assert.deepEqual(await fileRead.run({ path: "nope.txt" }, ctx), {
    content: "Path not found: nope.txt",
    ok: false,
  });
  assert.deepEqual(await fileRead.run({ path: "dir" }, ctx), {
    content: "dir is a directory; use list_dir",
    ok: false,
  });
  assert.deepEqual(await fileRead.run({ path: "a\0.txt" }, ctx), {
    content: "Path contains a NUL byte",
    ok: false,
  });
  assert.deepEqual(await fileRead.run({ path: "loop-a" }, ctx), {
    content: "Symbolic link loop at loop-a",
    ok: false,
  });
});

Deno.test("file_read refuses a FIFO instead of blocking on it", async () => {
  await using w = await worktree();
  const fifo = join(w.root, "pipe");
  await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.deepEqual(await fileRead.run({ path: "pipe" }, context(w.root)), {
    content: "pipe is not a regular file",
    ok: false,
  });
});

Deno.test("file_read stops when the turn is cancelled", async () => {
  await using w = await worktree({ "a.txt": lines(10) });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(() =>
    fileRead.run({ path: "a.txt" }, context(w.root, {}, controller.signal))
  );
});

Deno.test("file_read cuts a long line between whole characters", async () => {
  await using w = await worktree({ "wide.txt": "a".repeat(599) + "😀".repeat(20) + "\n" });
  const out = text(
    await fileRead.run({ path: "wide.txt" }, context(w.root, { tool_max_result_chars: 1000 })),
  );
  assert.equal(out.split("\n")[1], `1\t${"a".repeat(599)} [line cut at 600 chars]`);
});
