import assert from "node:assert/strict";
import { type Block, BlockCommitter, renderBlock } from "../../src/repl/markdown.ts";
import { makeStyle } from "../../src/repl/style.ts";

const ANSWER =
  "# Title\nSome *text*\nmore **text**.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nafter `x`\n";

/** Feeds `text` in chunks of `size`; returns each block with how much had been fed when it came out. */
function stream(committer: BlockCommitter, text: string, size: number) {
  const out: Array<Block & { at: number }> = [];
  for (let i = 0; i < text.length; i += size) {
    for (const b of committer.feed(text.slice(i, i + size))) out.push({ ...b, at: i + size });
  }
  for (const b of committer.end()) out.push({ ...b, at: text.length });
  return out;
}

Deno.test("blocks finish at blank lines, headings and closing fences, whatever the chunking", () => {
  for (const size of [1, 3, 7, 1000]) {
    const blocks = stream(new BlockCommitter("blocks"), ANSWER, size).map(({ kind, text }) => ({
      kind,
      text,
    }));
    assert.deepEqual(blocks, [
      { kind: "heading", text: "# Title" },
      { kind: "text", text: "Some *text*\nmore **text**." },
      { kind: "blank", text: "" },
      { kind: "code", text: "```ts\nconst a = 1;\n\nconst b = 2;\n```" },
      { kind: "text", text: "after `x`" },
    ], `chunk size ${size}`);
  }
});

Deno.test("a finished block is handed out once, as soon as it ends, and the tail is the open rest", () => {
  const c = new BlockCommitter("blocks");
  assert.deepEqual(c.feed("Some text\nand mo"), []);
  assert.equal(c.tail(), "Some text\nand mo");
  assert.deepEqual(c.feed("re\n\n```\ncode"), [
    { kind: "text", text: "Some text\nand more" },
    { kind: "blank", text: "" },
  ]);
  assert.equal(c.tail(), "```\ncode");
  assert.deepEqual(c.feed("\n```\n"), [{ kind: "code", text: "```\ncode\n```" }]);
  assert.equal(c.tail(), "");
  assert.deepEqual(c.end(), []);
});

Deno.test("lines mode (markdown_streaming off) finishes every complete line as streamed", () => {
  const c = new BlockCommitter("lines");
  assert.deepEqual(c.feed("a\nb"), [{ kind: "line", text: "a" }]);
  assert.equal(c.tail(), "b");
  assert.deepEqual(c.end(), [{ kind: "line", text: "b" }]);
});

Deno.test("rendering styles markdown with color, keeps code blocks as written, and is plain without color", () => {
  const color = makeStyle(true);
  const plain = makeStyle(false);
  assert.equal(renderBlock({ kind: "heading", text: "## Title" }, color), "\x1b[1mTitle\x1b[22m");
  assert.equal(
    renderBlock({ kind: "text", text: "a **b** `c` *d*" }, color),
    "a \x1b[1mb\x1b[22m \x1b[36mc\x1b[39m \x1b[3md\x1b[23m",
  );
  assert.equal(
    renderBlock({ kind: "code", text: "```ts\n  let x = `**y**`;\n```" }, color),
    "\x1b[2m```ts\x1b[22m\n  let x = `**y**`;\n\x1b[2m```\x1b[22m",
  );
  for (const block of stream(new BlockCommitter("blocks"), ANSWER, 5)) {
    assert.equal(renderBlock(block, plain), block.text);
  }
});
