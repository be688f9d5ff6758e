import assert from "node:assert/strict";
import { compilePattern, grep } from "../src/grep.ts";
import { type GrepQuery, MatchSet, searchRipgrep } from "../src/grep_search.ts";
import { setRipgrepEnabled } from "../src/ripgrep.ts";
import { context, hasRipgrep, worktree } from "./_context.ts";
import { mixedTree } from "./_fixture.ts";
import { runSandboxed } from "./_sandboxed.ts";

/** A compiled query for a pattern known to be valid. */
const compile = (pattern: string) => compilePattern(pattern) as GrepQuery;

/** Runs grep with the in-process engine only. */
async function grepInProcess(args: Record<string, unknown>, root: string) {
  setRipgrepEnabled(false);
  try {
    return await grep.run(args, context(root));
  } finally {
    setRipgrepEnabled(undefined);
  }
}

/**
 * Runs grep with both engines, asserts they agree, and returns the common result. Without
 * ripgrep only the in-process engine runs, so callers also assert the result itself; a test
 * that only compares the engines is ignored then (`needs ripgrep`).
 */
async function grepBoth(args: Record<string, unknown>, root: string) {
  const inProcess = await grepInProcess(args, root);
  if (hasRipgrep) assert.deepEqual(await grep.run(args, context(root)), inProcess);
  return inProcess;
}

const HELLO = [
  ".github/ci.yml:1: name: hello",
  "build:1: hello, a file named like a noise dir",
  "crlf.txt:1: hello",
  "exact.txt:1: hello",
  "lib/d.js:1: // hello from lib",
  "src/a.ts:1: hello world",
  "src/a.ts:3: indented hello",
  "src/sub/b.ts:1: export const hello = 1;",
  "unicode.txt:2: 日本語 hello",
].join("\n");

Deno.test("grep lists file:line: text sorted, skipping binary, oversized and noise files", async () => {
  await using w = await mixedTree();
  assert.equal(await grepBoth({ pattern: "hello" }, w.root), HELLO);
});

Deno.test("grep filters files with glob and searches under path", async () => {
  await using w = await mixedTree();
  assert.equal(
    await grepBoth({ pattern: "hello", glob: "*.ts" }, w.root),
    "src/a.ts:1: hello world\nsrc/a.ts:3: indented hello\nsrc/sub/b.ts:1: export const hello = 1;",
  );
  assert.equal(
    await grepBoth({ pattern: "hello", path: "src", glob: "sub/**" }, w.root),
    "src/sub/b.ts:1: export const hello = 1;",
  );
  assert.equal(
    await grepBoth({ pattern: "foo", glob: "*.{py,txt}" }, w.root),
    "crlf.txt:2: foo\nsrc/c.py:2: foo",
  );
});

Deno.test("grep searches a single file given as path", async () => {
  await using w = await mixedTree();
  assert.equal(
    await grepBoth({ pattern: "hello", path: "src/a.ts" }, w.root),
    "src/a.ts:1: hello world\nsrc/a.ts:3: indented hello",
  );
  assert.deepEqual(await grep.run({ pattern: "hello", path: "big.txt" }, context(w.root)), {
    content: "Skipped big.txt: larger than 1 MB; read it with file_read offset/limit",
    ok: false,
  });
});

Deno.test("grep understands (?i), anchors, Unicode and look-around", async () => {
  await using w = await mixedTree();
  assert.equal(
    await grepBoth({ pattern: "(?i)^HELLO$" }, w.root),
    "crlf.txt:1: hello\nexact.txt:1: hello",
  );
  assert.equal(
    await grepBoth({ pattern: "w.rld" }, w.root),
    "src/a.ts:1: hello world\nunicode.txt:1: héllo wörld",
  );
  assert.equal(
    await grepBoth({ pattern: "(?<=const )hello" }, w.root),
    "src/sub/b.ts:1: export const hello = 1;",
  );
  assert.equal(
    await grepBoth({ pattern: "(?i)hello(?!,| world| from|$)" }, w.root),
    [
      "src/a.ts:3: indented hello",
      "src/c.py:1: print('Hello')",
      "src/sub/b.ts:1: export const hello = 1;",
    ].join("\n"),
  );
});

Deno.test("grep says when nothing matches", async () => {
  await using w = await mixedTree();
  assert.equal(await grepBoth({ pattern: "absent" }, w.root), "No matches for absent in .");
  assert.equal(
    await grepBoth({ pattern: "hello", glob: "*.rs" }, w.root),
    "No matches for hello in . (glob *.rs)",
  );
});

Deno.test("grep turns an invalid regex into a friendly error result", async () => {
  await using w = await mixedTree();
  assert.deepEqual(await grep.run({ pattern: "foo(bar" }, context(w.root)), {
    content:
      'Invalid regex "foo(bar": Unterminated group; escape ( [ { . * + ? | \\ with a backslash to match them literally',
    ok: false,
  });
  assert.deepEqual(await grep.run({ pattern: "[a-" }, context(w.root)), {
    content:
      'Invalid regex "[a-": Unterminated character class; escape ( [ { . * + ? | \\ with a backslash to match them literally',
    ok: false,
  });
});

Deno.test("grep caps at 100 matches with a marker giving the total", async () => {
  const files = Object.fromEntries(
    Array.from(
      { length: 30 },
      (_, i) => [`f${String(i).padStart(2, "0")}.txt`, "hit\n".repeat(10)],
    ),
  );
  await using w = await worktree(files);
  const lines = (await grepBoth({ pattern: "hit" }, w.root) as string).split("\n");
  assert.equal(lines.length, 101);
  assert.equal(lines[0], "f00.txt:1: hit");
  assert.equal(lines[99], "f09.txt:10: hit");
  assert.equal(lines[100], "[... showing 100 of 300 matches; narrow the pattern, path or glob]");
});

Deno.test("grep shortens very long matching lines", async () => {
  await using w = await worktree({ "min.js": `${"a".repeat(1000)}needle${"b".repeat(1000)}\n` });
  assert.equal(await grepBoth({ pattern: "needle" }, w.root), `min.js:1: ${"a".repeat(300)}...`);
});

Deno.test("grep reports missing paths and NUL bytes", async () => {
  await using w = await mixedTree();
  assert.deepEqual(await grep.run({ pattern: "x", path: "gone" }, context(w.root)), {
    content: "Path not found: gone",
    ok: false,
  });
  assert.deepEqual(await grep.run({ pattern: "x", path: "a\0" }, context(w.root)), {
    content: "Path contains a NUL byte",
    ok: false,
  });
});

Deno.test("grep passes over a directory it may not read, without ripgrep or run permission", async () => {
  await using w = await worktree({ "ok/a.txt": "needle\n", "locked/b.txt": "needle\n" });
  assert.equal(
    await runSandboxed("grep", w.root, { pattern: "needle" }, `${w.root}/locked`),
    "ok/a.txt:1: needle",
  );
});

Deno.test("grep stops when the turn is cancelled, with either engine", async () => {
  await using w = await mixedTree();
  const controller = new AbortController();
  controller.abort();
  const ctx = context(w.root, {}, controller.signal);
  await assert.rejects(() => grep.run({ pattern: "hello" }, ctx));
  setRipgrepEnabled(false);
  try {
    await assert.rejects(() => grep.run({ pattern: "hello" }, ctx));
  } finally {
    setRipgrepEnabled(undefined);
  }
});

Deno.test({
  name: "grep uses ripgrep when installed and falls back for regexes it rejects (needs ripgrep)",
  ignore: !hasRipgrep,
  fn: async () => {
    await using w = await mixedTree();
    const signal = new AbortController().signal;
    const plain = new MatchSet(100);
    assert.equal(await searchRipgrep(w.root, compile("hello"), { matches: plain, signal }), true);
    assert.equal(plain.total, 9);
    const lookBehind = new MatchSet(100);
    assert.equal(
      await searchRipgrep(w.root, compile("(?<=a)b"), { matches: lookBehind, signal }),
      false,
    );
  },
});

Deno.test("grep engines agree on globs with braces, classes and negation (needs ripgrep)", {
  ignore: !hasRipgrep,
}, async () => {
  await using w = await mixedTree();
  for (const glob of ["*.{ts,js}", "[a-c]*", "!*.ts", "src/**/*.ts", "**/*.md", ".github/*"]) {
    await grepBoth({ pattern: "o", glob }, w.root);
  }
});
