/**
 * The pure parts of the REPL's daily-driver habits, in-process: terminal widths of emoji, a
 * tool's diff under its line, the status line's context size, `@path` mentions and their
 * completion, and Markdown commands (the pty test in repl_daily.test.ts drives them end to end).
 */
import assert from "node:assert/strict";
import { clip, loadWidths, textWidth, wrapLine } from "../../src/repl/width.ts";
import { diffLines } from "../../src/repl/diff_view.ts";
import { makeStyle } from "../../src/repl/style.ts";
import { contextLabel } from "../../src/repl/live_region.ts";
import { findMentions } from "../../src/repl/mentions.ts";
import { mentionAt } from "../../src/repl/complete.ts";
import { expandCommand, loadPromptCommands } from "../../src/catalog/commands.ts";
import { completePath } from "../../src/runtime/worktree_paths.ts";
import type { SessionMessage } from "../../src/runtime/mod.ts";
import { needs } from "../_support/tools.ts";

Deno.test("emoji, wide characters and combined graphemes take the cells a terminal gives them", async () => {
  await loadWidths();
  const widths = ["✅", "⚡", "⌚", "❤️", "👍🏽", "👨‍👩‍👧", "中", "é", "a"].map(textWidth);
  assert.deepEqual(widths, [2, 2, 2, 2, 2, 2, 2, 1, 1]);
  assert.equal(textWidth("\x1b[31mok ✅\x1b[39m"), 5);
  // A grapheme is never split across rows, and escape sequences stay with their text.
  assert.deepEqual(wrapLine("ab👍🏽cd❤️", 3), ["ab", "👍🏽c", "d❤️"]);
  assert.deepEqual(wrapLine("\x1b[1mabcd\x1b[22m", 2), ["\x1b[1mab", "cd\x1b[22m"]);
  assert.equal(clip("✅✅✅✅", 5), "✅✅…");
});

const PREVIEW = [
  "--- /w/a.ts",
  "+++ /w/a.ts",
  "@@ -1,3 +1,3 @@",
  " keep",
  "-old \x1b]52;c;x\x07",
  "+new",
];

Deno.test("a tool's diff shows its hunks coloured under the tool line, capped with a count of the rest", () => {
  const color = makeStyle(true);
  assert.deepEqual(diffLines(PREVIEW.join("\n"), color), [
    "  \x1b[36m@@ -1,3 +1,3 @@\x1b[39m",
    "   keep",
    "  \x1b[31m-old \\x1b]52;c;x\\x07\x1b[39m",
    "  \x1b[32m+new\x1b[39m",
  ]);
  const plain = makeStyle(false);
  const long = [...PREVIEW.slice(0, 3), ...Array.from({ length: 20 }, (_, i) => `+line ${i}`)];
  const shown = diffLines(long.join("\n"), plain, 5);
  assert.deepEqual(shown, [
    "  @@ -1,3 +1,3 @@",
    "  +line 0",
    "  +line 1",
    "  +line 2",
    "  … 17 more lines",
  ]);
  // The tool's own cap joins the count.
  const capped = [...long, "[... 30 more diff lines]"].join("\n");
  assert.equal(diffLines(capped, plain, 5).at(-1), "  … 47 more lines");
});

const at = (role: SessionMessage["role"], content: string, extra = {}): SessionMessage => ({
  role,
  content,
  timestamp: "2026-11-26T00:00:00Z",
  ...extra,
});

Deno.test("the status line keeps a turn's reported context size after slash commands and estimates what is added", () => {
  const messages = [at("user", "q"), at("assistant", "a")];
  const measured = { tokens: 4321, at: 2 };
  assert.equal(contextLabel(messages, { measured }), "ctx 4.3k tokens");
  messages.push(at("command", "/help"));
  assert.equal(contextLabel(messages, { measured, window: 32768 }), "ctx 4.3k of 32.8k tokens");
  messages.push(at("user", "x".repeat(400)));
  assert.equal(contextLabel(messages, { measured }), "ctx ~4.4k tokens");
  // A compaction after the measure: an estimate of what is left.
  messages.push(at("system", "S".repeat(80), { compact_from: 3 }));
  assert.equal(contextLabel(messages, { measured }), "ctx ~120 tokens");
  assert.equal(contextLabel([at("user", "abcdefgh")]), "ctx ~2 tokens");
});

Deno.test("@path mentions are found with their line ranges, and the word at the cursor completes", () => {
  assert.deepEqual(
    findMentions("see @src/a.ts:10-40, @docs/ and @b.md:7. mail me@example.com @src/a.ts:10-40"),
    [
      { text: "src/a.ts:10-40", path: "src/a.ts", from: 10, to: 40 },
      { text: "docs/", path: "docs/" },
      { text: "b.md:7", path: "b.md", from: 7, to: 7 },
    ],
  );
  assert.deepEqual(mentionAt("look at @src/re", 15), { start: 8, typed: "src/re" });
  assert.equal(mentionAt("mail me@x", 9), null);
});

Deno.test(
  "@path completion lists one folder's entries and leaves out what git ignores (needs git)",
  needs("git"),
  async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-mention-" }));
    try {
      await new Deno.Command("git", { args: ["init", "-q", dir] }).output();
      for (const path of ["src/app.ts", "src/api.ts", "src/apx.log", "node_modules/x.js", "a.md"]) {
        await Deno.mkdir(`${dir}/${path.split("/").slice(0, -1).join("/") || "."}`, {
          recursive: true,
        });
        await Deno.writeTextFile(`${dir}/${path}`, "x");
      }
      await Deno.writeTextFile(`${dir}/.gitignore`, "*.log\n");
      assert.deepEqual(await completePath(dir, ""), ["a.md", "src/"]);
      assert.deepEqual(await completePath(dir, "src/ap"), ["src/api.ts", "src/app.ts"]);
      assert.deepEqual(await completePath(dir, "../"), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("Markdown commands: layers by name, front matter, placeholders, and no local ones in an untrusted worktree", async () => {
  const root = await Deno.makeTempDir({ prefix: "svc-commands-" });
  const write = async (path: string, text: string) => {
    await Deno.mkdir(`${root}/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  };
  try {
    await write("plugin/commands/lint.md", "Lint it");
    await write("global/commands/review.md", "Review globally");
    await write(
      "work/.svc/commands/review.md",
      "---\ndescription: review a file\nargument-hint: <file>\nmodel: small\nagent: reviewer\n" +
        "allowed-tools: file_read, grep\n---\nReview $1 carefully: $ARGUMENTS\n",
    );
    await write("work/.svc/commands/bad.md", "---\nmodel: [1]\n---\nx");
    const sources = {
      worktree: `${root}/work`,
      globalDir: `${root}/global`,
      plugins: [{ name: "lintkit", dir: `${root}/plugin` }],
    };
    const trusted = await loadPromptCommands({ ...sources, trusted: true });
    assert.deepEqual(trusted.commands.map((c) => [c.name, c.layer]), [
      ["lint", "plugin"],
      ["review", "local"],
    ]);
    const review = trusted.commands[1];
    assert.deepEqual(
      { ...review, path: undefined },
      {
        name: "review",
        body: "Review $1 carefully: $ARGUMENTS",
        description: "review a file",
        argumentHint: "<file>",
        model: "small",
        agent: "reviewer",
        allowedTools: ["file_read", "grep"],
        layer: "local",
        path: undefined,
      },
    );
    assert.deepEqual(trusted.warnings, [
      `${root}/work/.svc/commands/bad.md: front matter model must be text; skipped`,
    ]);
    const untrusted = await loadPromptCommands({ ...sources, trusted: false });
    assert.deepEqual(untrusted.commands.map((c) => [c.name, c.layer]), [
      ["lint", "plugin"],
      ["review", "global"],
    ]);
    assert.match(
      untrusted.warnings[0],
      /\.svc\/commands is not read: this worktree is not trusted/,
    );
    assert.equal(expandCommand(review.body, "a.ts  now"), "Review a.ts carefully: a.ts  now");
    assert.equal(expandCommand("Lint it", "src/"), "Lint it\n\nsrc/");
    assert.equal(expandCommand("Only $2", "x"), "Only ");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
