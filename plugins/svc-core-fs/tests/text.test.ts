import assert from "node:assert/strict";
import { truncateAtLine } from "../../../src/tool/text.ts";

Deno.test("truncateAtLine leaves text within the cap untouched, and 0 means unlimited", () => {
  assert.equal(truncateAtLine("a\nb\nc", 5), "a\nb\nc");
  assert.equal(truncateAtLine("x".repeat(500_000), 0), "x".repeat(500_000));
});

Deno.test("truncateAtLine cuts at a line boundary and counts the marker in the cap", () => {
  const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
  const out = truncateAtLine(text, 120);
  assert.equal(
    out,
    "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\n" +
      "[... truncated: showing 41 of 389 characters; use offset/limit to read more]",
  );
  assert.ok(out.length <= 120);
});

Deno.test("truncateAtLine cuts a single long line mid-line", () => {
  assert.equal(
    truncateAtLine("y".repeat(300), 100),
    `${
      "y".repeat(22)
    }\n[... truncated: showing 22 of 300 characters; use offset/limit to read more]`,
  );
});

Deno.test("truncateAtLine takes a custom hint or none", () => {
  assert.equal(
    truncateAtLine("aaaa\nbbbb\ncccc\n".repeat(10), 80, "narrow the search"),
    "aaaa\nbbbb\ncccc\n[... truncated: showing 14 of 150 characters; narrow the search]",
  );
  assert.equal(
    truncateAtLine("aaaa\nbbbb\ncccc\n".repeat(10), 60, ""),
    "aaaa\nbbbb\ncccc\n[... truncated: showing 14 of 150 characters]",
  );
});

Deno.test("truncateAtLine never splits a surrogate pair", () => {
  const out = truncateAtLine("😀".repeat(100), 100);
  const kept = out.slice(0, out.indexOf("\n["));
  assert.equal(kept, "😀".repeat(kept.length / 2));
  assert.ok(kept.length % 2 === 0);
});

Deno.test("truncateAtLine returns only the marker when the cap is smaller than it", () => {
  assert.equal(
    truncateAtLine("a\n".repeat(100), 10),
    "[... truncated: showing 0 of 200 characters; use offset/limit to read more]",
  );
});

Deno.test("truncateAtLine cuts a long line at a grapheme boundary, never inside a surrogate pair", () => {
  const marker = (shown: number, of: number) =>
    `\n[... truncated: showing ${shown} of ${of} characters; use offset/limit to read more]`;
  // The budget is 100 - 78 = 22 code units: the 22nd is the first half of a 😀.
  assert.equal(
    truncateAtLine("a".repeat(21) + "😀".repeat(100), 100),
    "a".repeat(21) + marker(21, 221),
  );
  // A flag is two code points (four code units): cut between them it would show half a flag.
  assert.equal(
    truncateAtLine("a".repeat(20) + "🇫🇷".repeat(50), 100),
    "a".repeat(20) + marker(20, 220),
  );
});
