import assert from "node:assert/strict";
import { glob } from "../src/glob.ts";
import { setRipgrepEnabled } from "../src/ripgrep.ts";
import { context, hasRipgrep, worktree } from "./_context.ts";
import { mixedTree } from "./_fixture.ts";

/** Runs glob with the in-process engine only. */
async function globInProcess(args: Record<string, unknown>, root: string) {
  setRipgrepEnabled(false);
  try {
    return await glob.run(args, context(root));
  } finally {
    setRipgrepEnabled(undefined);
  }
}

Deno.test("glob without a slash matches names at any depth and skips noise dirs", async () => {
  await using w = await mixedTree();
  const expected = "src/a.ts\nsrc/sub/b.ts";
  assert.equal(await globInProcess({ pattern: "*.ts" }, w.root), expected);
});

Deno.test("glob with a slash anchors at the search root and marks directories with /", async () => {
  await using w = await mixedTree();
  assert.equal(await globInProcess({ pattern: "src/*" }, w.root), "src/a.ts\nsrc/c.py\nsrc/sub/");
  assert.equal(await globInProcess({ pattern: "src/**/*.ts" }, w.root), "src/a.ts\nsrc/sub/b.ts");
  assert.equal(await globInProcess({ pattern: "./src/sub/b.ts" }, w.root), "src/sub/b.ts");
});

Deno.test("glob lists hidden files, and files named like noise dirs", async () => {
  await using w = await mixedTree();
  assert.equal(
    await globInProcess({ pattern: "*" }, w.root),
    [
      ".github/",
      ".github/ci.yml",
      "big.txt",
      "bin.dat",
      "build",
      "crlf.txt",
      "docs/",
      "docs/guide.md",
      "exact.txt",
      "late.bin",
      "lib/",
      "lib/d.js",
      "src/",
      "src/a.ts",
      "src/c.py",
      "src/sub/",
      "src/sub/b.ts",
      "unicode.txt",
    ].join("\n"),
  );
});

Deno.test("glob searches under path and shows paths from the worktree", async () => {
  await using w = await mixedTree();
  assert.equal(await globInProcess({ pattern: "*.ts", path: "src/sub" }, w.root), "src/sub/b.ts");
  assert.equal(await globInProcess({ pattern: "sub/*", path: "src" }, w.root), "src/sub/b.ts");
});

Deno.test("glob says when nothing matches", async () => {
  await using w = await mixedTree();
  assert.equal(await globInProcess({ pattern: "*.rs" }, w.root), "No matches for *.rs in .");
  assert.equal(
    await globInProcess({ pattern: "nowhere/*.ts" }, w.root),
    "No matches for nowhere/*.ts in .",
  );
});

Deno.test("glob caps at 200 matches with a marker giving the total", async () => {
  const files = Object.fromEntries(
    Array.from({ length: 250 }, (_, i) => [`m/f${String(i).padStart(3, "0")}.txt`, "x"]),
  );
  await using w = await worktree(files);
  const lines = (await globInProcess({ pattern: "*.txt" }, w.root) as string).split("\n");
  assert.equal(lines.length, 201);
  assert.equal(lines[0], "m/f000.txt");
  assert.equal(lines[199], "m/f199.txt");
  assert.equal(lines[200], "[... showing 200 of 250 matches; narrow the pattern]");
});

Deno.test("glob refuses absolute and parent patterns, and bad paths", async () => {
  await using w = await mixedTree();
  const ctx = context(w.root);
  const relative = {
    content: "Pattern must be relative; set path to search another directory",
    ok: false,
  };
  assert.deepEqual(await glob.run({ pattern: "/etc/*" }, ctx), relative);
  assert.deepEqual(await glob.run({ pattern: "../*" }, ctx), relative);
  assert.deepEqual(await glob.run({ pattern: "src/../../*" }, ctx), relative);
  assert.deepEqual(await glob.run({ pattern: "" }, ctx), {
    content: "Pattern is empty or holds a NUL byte",
    ok: false,
  });
  assert.deepEqual(await glob.run({ pattern: "*", path: "missing" }, ctx), {
    content: "Path not found: missing",
    ok: false,
  });
  assert.deepEqual(await glob.run({ pattern: "*", path: "build" }, ctx), {
    content: "Not a directory: build",
    ok: false,
  });
  assert.deepEqual(await glob.run({ pattern: "*", path: "a\0b" }, ctx), {
    content: "Path contains a NUL byte",
    ok: false,
  });
});

const PARITY_PATTERNS = ["*.ts", "*", "**", "src/*", "src/**", "**/*.{ts,py}", "?uild", "*.txt"];

Deno.test({
  name: "glob gives the same output with ripgrep and with the in-process walk (needs ripgrep)",
  ignore: !hasRipgrep,
  fn: async () => {
    await using w = await mixedTree();
    for (const pattern of PARITY_PATTERNS) {
      for (const path of [".", "src"]) {
        const viaRipgrep = await glob.run({ pattern, path }, context(w.root));
        assert.equal(viaRipgrep, await globInProcess({ pattern, path }, w.root), pattern);
      }
    }
  },
});

Deno.test("glob stops when the turn is cancelled", async () => {
  await using w = await mixedTree();
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(() => glob.run({ pattern: "*" }, context(w.root, {}, controller.signal)));
  setRipgrepEnabled(false);
  try {
    await assert.rejects(() => glob.run({ pattern: "*" }, context(w.root, {}, controller.signal)));
  } finally {
    setRipgrepEnabled(undefined);
  }
});
