import assert from "node:assert/strict";
import { KeyDecoder } from "../../src/repl/keys.ts";

Deno.test("the key decoder turns terminal bytes into named keys with modifiers", () => {
  const d = new KeyDecoder();
  assert.deepEqual(d.feed("a\x1b[A\x1b[1;5D\x1bOH\x1b[3~\r\n\t\x7f\x03\x04\x12\x1b\r\x1bb\x1b[Z"), [
    { name: "a", text: "a" },
    { name: "up" },
    { name: "left", ctrl: true },
    { name: "home" },
    { name: "delete" },
    { name: "enter" },
    { name: "enter", ctrl: true },
    { name: "tab" },
    { name: "backspace" },
    { name: "c", ctrl: true },
    { name: "d", ctrl: true },
    { name: "r", ctrl: true },
    { name: "enter", meta: true },
    { name: "b", text: "b", meta: true },
    { name: "tab", shift: true },
  ]);
});

Deno.test("a lone Esc waits for the rest of a sequence and is the Esc key once flushed", () => {
  const d = new KeyDecoder();
  assert.deepEqual(d.feed("\x1b"), []);
  assert.equal(d.waiting, true);
  assert.deepEqual(d.feed("[B"), [{ name: "down" }]);
  assert.deepEqual(d.feed("\x1b"), []);
  assert.deepEqual(d.flush(), [{ name: "escape" }]);
  assert.equal(d.waiting, false);
});

Deno.test("a bracketed paste arrives as one paste event even when split across chunks", () => {
  const d = new KeyDecoder();
  assert.deepEqual(d.feed("x\x1b[200~line one\r\nline"), [{ name: "x", text: "x" }]);
  assert.deepEqual(d.feed(" two\r\x1b[20"), []);
  assert.deepEqual(d.feed("1~y"), [
    { name: "paste", text: "line one\nline two\n" },
    { name: "y", text: "y" },
  ]);
});

Deno.test("multi-byte characters split across chunks decode whole", () => {
  const d = new KeyDecoder();
  const bytes = new TextEncoder().encode("é😀");
  assert.deepEqual(d.feed(bytes.slice(0, 1)), []);
  assert.deepEqual(d.feed(bytes.slice(1, 4)), [{ name: "é", text: "é" }]);
  assert.deepEqual(d.feed(bytes.slice(4)), [{ name: "😀", text: "😀" }]);
});

Deno.test("Shift-Enter arrives as a modified Enter in the kitty and xterm modifyOtherKeys forms", () => {
  const d = new KeyDecoder();
  assert.deepEqual(d.feed("\x1b[13;2u\x1b[27;2;13~\x1b[27;5;13~"), [
    { name: "enter", shift: true },
    { name: "enter", shift: true },
    { name: "enter", ctrl: true },
  ]);
});
