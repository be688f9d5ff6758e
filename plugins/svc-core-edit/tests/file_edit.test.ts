import assert from "node:assert/strict";
import { fileEdit } from "../src/file_edit.ts";
import { context, names, worktree } from "./_context.ts";
import { argSchema, loadZod } from "../../../src/tool/arg_schema.ts";

await loadZod();

const SOURCE = "function greet() {\n  return 'hi';\n}\n\nfunction part() {\n  return 'bye';\n}\n";

Deno.test("file_edit replaces a unique match and previews the diff in the status", async () => {
  await using w = await worktree({ "src/app.ts": SOURCE });
  const path = w.path("src/app.ts");
  assert.deepEqual(
    await fileEdit.run(
      { path: "src/app.ts", old: "return 'hi';", new: "return 'hello';" },
      context(w.root),
    ),
    {
      content: `Replaced 1 occurrence in ${path} (line 2)`,
      status: [
        `--- ${path}`,
        `+++ ${path}`,
        "@@ -1,3 +1,3 @@",
        " function greet() {",
        "-  return 'hi';",
        "+  return 'hello';",
        " }",
      ].join("\n"),
    },
  );
  assert.equal(await w.read("src/app.ts"), SOURCE.replace("'hi'", "'hello'"));
  assert.deepEqual(await names(w.path("src")), ["app.ts"]);
});

Deno.test("file_edit refuses an ambiguous match and says how many there are", async () => {
  await using w = await worktree({ "a.ts": SOURCE });
  assert.deepEqual(
    await fileEdit.run({ path: "a.ts", old: "return", new: "yield" }, context(w.root)),
    {
      content: `old matches 2 times in ${
        w.path("a.ts")
      } but count is 1; add surrounding lines to make it unique, or set count to 2 (or 0 for all)`,
      ok: false,
    },
  );
  assert.deepEqual(
    await fileEdit.run({ path: "a.ts", old: "n", new: "N", count: 3 }, context(w.root)),
    {
      content: `old matches 6 times in ${
        w.path("a.ts")
      } but count is 3; add surrounding lines to make it unique, or set count to 6 (or 0 for all)`,
      ok: false,
    },
  );
  assert.equal(await w.read("a.ts"), SOURCE);
});

Deno.test("file_edit with count 0 replaces every occurrence, and count N allows N", async () => {
  await using w = await worktree({ "a.ts": SOURCE });
  const ctx = context(w.root);
  assert.equal(
    (await fileEdit.run(
      { path: "a.ts", old: "function", new: "async function", count: 0 },
      ctx,
    ) as {
      content: string;
    }).content,
    `Replaced 2 occurrences in ${w.path("a.ts")} (lines 1, 5)`,
  );
  assert.equal(
    (await fileEdit.run({ path: "a.ts", old: "return", new: "yield", count: 2 }, ctx) as {
      content: string;
    }).content,
    `Replaced 2 occurrences in ${w.path("a.ts")} (lines 2, 6)`,
  );
  assert.equal(
    await w.read("a.ts"),
    SOURCE.replaceAll("function", "async function").replaceAll("return", "yield"),
  );
});

Deno.test("file_edit explains a miss and points at a whitespace-only difference", async () => {
  await using w = await worktree({ "a.ts": SOURCE });
  const ctx = context(w.root);
  assert.deepEqual(
    await fileEdit.run({ path: "a.ts", old: "    return 'hi';\n}", new: "x" }, ctx),
    {
      content: `old was not found in ${
        w.path("a.ts")
      }; its first line appears at line 2: check indentation and the lines after it`,
      ok: false,
    },
  );
  assert.deepEqual(await fileEdit.run({ path: "a.ts", old: "absent", new: "x" }, ctx), {
    content: `old was not found in ${
      w.path("a.ts")
    }; read the file again with file_read and copy old exactly`,
    ok: false,
  });
});

Deno.test("file_edit refuses an empty old and an old equal to new", async () => {
  await using w = await worktree({ "a.ts": SOURCE });
  const ctx = context(w.root);
  assert.deepEqual(await fileEdit.run({ path: "a.ts", old: "", new: "x" }, ctx), {
    content: "old is empty; use file_write to create or replace a whole file",
    ok: false,
  });
  assert.deepEqual(await fileEdit.run({ path: "a.ts", old: "hi", new: "hi" }, ctx), {
    content: "old and new are identical; nothing to change",
    ok: false,
  });
});

Deno.test("file_edit inserts replacement text literally, $ patterns included", async () => {
  await using w = await worktree({ "a.txt": "price: X\n" });
  await fileEdit.run({ path: "a.txt", old: "X", new: "$& $1 $$" }, context(w.root));
  assert.equal(await w.read("a.txt"), "price: $& $1 $$\n");
});

Deno.test("file_edit matches LF text in a CRLF file and keeps CRLF endings", async () => {
  await using w = await worktree({ "win.txt": "one\r\ntwo\r\nthree\r\n" });
  const out = await fileEdit.run(
    { path: "win.txt", old: "one\ntwo", new: "1\n2" },
    context(w.root),
  );
  assert.equal(
    (out as { content: string }).content,
    `Replaced 1 occurrence in ${w.path("win.txt")} (line 1)`,
  );
  assert.equal(await w.read("win.txt"), "1\r\n2\r\nthree\r\n");
});

Deno.test("file_edit keeps a byte order mark and the file mode", async () => {
  await using w = await worktree({ "bom.txt": "\uFEFFkey=old\n" });
  await Deno.chmod(w.path("bom.txt"), 0o600);
  await fileEdit.run({ path: "bom.txt", old: "old", new: "new" }, context(w.root));
  assert.deepEqual([...await Deno.readFile(w.path("bom.txt"))].slice(0, 3), [0xef, 0xbb, 0xbf]);
  assert.equal(await w.read("bom.txt"), "\uFEFFkey=new\n");
  assert.equal((await Deno.stat(w.path("bom.txt"))).mode! & 0o777, 0o600);
});

Deno.test("file_edit edits through a symlink and keeps the link", async () => {
  await using w = await worktree({ "real.txt": "a\n" });
  await Deno.symlink("real.txt", w.path("link.txt"));
  await fileEdit.run({ path: "link.txt", old: "a", new: "b" }, context(w.root));
  assert.equal((await Deno.lstat(w.path("link.txt"))).isSymlink, true);
  assert.equal(await w.read("real.txt"), "b\n");
});

Deno.test("file_edit declares its alias and argument aliases", () => {
  assert.deepEqual(
    [
      fileEdit.aliases,
      fileEdit.argAliases,
      fileEdit.pathArgs,
      Object.keys(argSchema(fileEdit).shape),
    ],
    [["edit"], { old_text: "old", new_text: "new", file: "path" }, ["path"], [
      "path",
      "old",
      "new",
      "count",
    ]],
  );
});
