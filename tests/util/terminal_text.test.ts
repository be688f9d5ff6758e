import assert from "node:assert/strict";
import { visibleControls, visibleControlsKeepingStyle } from "../../src/util/terminal_text.ts";

Deno.test("visibleControls writes C0, DEL and C1 controls as \\xHH and keeps line feeds, tabs and text", () => {
  assert.equal(
    visibleControls("\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;title\x07"),
    String.raw`\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;title\x07`,
  );
  assert.equal(
    visibleControls("a\tb\nc\x00\x7f\x9b2J\x85"),
    String.raw`a	b
c\x00\x7f\x9b2J\x85`,
  );
  assert.equal(visibleControls("héllo 😀 \u00a0wörld"), "héllo 😀 \u00a0wörld");
});

Deno.test("visibleControls drops the CR of a CRLF and shows a bare CR", () => {
  assert.equal(
    visibleControls("one\r\ntwo\rover"),
    String.raw`one
two\x0dover`,
  );
});

Deno.test("visibleControlsKeepingStyle keeps SGR styling and shows every other escape", () => {
  assert.equal(
    visibleControlsKeepingStyle("\x1b[2mdim\x1b[22m \x1b[2J\x1b]0;t\x07"),
    String.raw`${"\x1b[2m"}dim${"\x1b[22m"} \x1b[2J\x1b]0;t\x07`,
  );
});
