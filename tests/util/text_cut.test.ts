import assert from "node:assert/strict";
import { cutIndex, cutText, tailText } from "../../src/util/text_cut.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

Deno.test("cutText never leaves half of a surrogate pair", () => {
  for (const n of [1, 2, 10, 599, 600, 1000]) {
    const text = "a".repeat(n - 1) + "😀";
    const cut = cutText(text, n);
    assert.equal(cut, "a".repeat(n - 1));
    assert.equal(LONE_SURROGATE.test(cut), false);
  }
  const emoji = "😀".repeat(50);
  for (let n = 0; n <= emoji.length; n++) {
    assert.equal(LONE_SURROGATE.test(cutText(emoji, n)), false, `at ${n}`);
  }
});

Deno.test("cutText cuts at grapheme boundaries: flags, combining marks and joined emoji stay whole", () => {
  assert.equal(cutText("ab🇫🇷🇩🇪", 5), "ab");
  assert.equal(cutText("ab🇫🇷🇩🇪", 7), "ab🇫🇷");
  assert.equal(cutText("abe\u0301", 3), "ab");
  assert.equal(cutText("x👩‍👩‍👧", 4), "x");
  assert.equal(cutText("short", 10), "short");
  assert.equal(cutIndex("abc", 0), 0);
});

Deno.test("a cluster longer than the look-back window is cut at a code point boundary", () => {
  const zalgo = "a" + "\u0301".repeat(100);
  assert.equal(cutText(zalgo, 60).length, 60);
  assert.equal(LONE_SURROGATE.test(cutText("a" + "\u0301".repeat(60) + "😀", 62)), false);
});

Deno.test("tailText starts at a code point boundary", () => {
  assert.equal(tailText("a😀b", 2), "b");
  assert.equal(tailText("a😀b", 3), "😀b");
  assert.equal(tailText("abc", 5), "abc");
});
