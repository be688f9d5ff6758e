import assert from "node:assert/strict";
import { Editor, type EditorAction } from "../../src/repl/editor.ts";
import { KeyDecoder } from "../../src/repl/keys.ts";

/** Types `bytes` into `editor` as a terminal would send them; returns the non-trivial actions. */
function type(editor: Editor, bytes: string): EditorAction[] {
  const decoder = new KeyDecoder();
  const keys = [...decoder.feed(bytes), ...decoder.flush()];
  return keys.map((k) => editor.handle(k)).filter((a) => a.type !== "none");
}

Deno.test("typing, cursor keys and the kill keys edit the line as readline does", () => {
  const e = new Editor();
  type(e, "hello world\x1b[D\x1b[D\x1b[DX"); // left x3, insert
  assert.equal(e.text, "hello woXrld");
  type(e, "\x01\x1b[3~"); // Ctrl-A, Delete
  assert.equal(e.text, "ello woXrld");
  type(e, "\x05\x17"); // Ctrl-E, Ctrl-W
  assert.equal(e.text, "ello ");
  type(e, "\x01\x0b"); // Ctrl-A, Ctrl-K
  assert.equal(e.text, "");
});

Deno.test("Enter submits; Ctrl-J, Alt-Enter and a trailing backslash add lines instead", () => {
  const e = new Editor();
  assert.deepEqual(type(e, "one\ntwo\x1b\rthree\\\rfour\r"), [
    { type: "submit", text: "one\ntwo\nthree\nfour" },
  ]);
  assert.equal(e.text, "");
});

Deno.test("Ctrl-C clears a line, reports an interrupt on an empty one, and Ctrl-D exits only when empty", () => {
  const e = new Editor();
  assert.deepEqual(type(e, "draft\x03"), [{ type: "cleared" }]);
  assert.deepEqual(type(e, "\x03"), [{ type: "interrupt" }]);
  assert.deepEqual(type(e, "ab\x1b[D\x04"), []);
  assert.equal(e.text, "a");
  assert.deepEqual(type(e, "\x7f\x04"), [{ type: "exit" }]);
});

Deno.test("Esc and Tab are handed to the REPL", () => {
  const e = new Editor();
  assert.deepEqual(type(e, "/he\t\x1b"), [{ type: "tab" }, { type: "escape" }]);
});

Deno.test("Up and Down walk the history and keep the draft", () => {
  const e = new Editor(["first", "second"]);
  type(e, "draft\x1b[A");
  assert.equal(e.text, "second");
  type(e, "\x1b[A\x1b[A");
  assert.equal(e.text, "first");
  type(e, "\x1b[B\x1b[B");
  assert.equal(e.text, "draft");
});

Deno.test("Ctrl-R searches the history backwards, Ctrl-R again finds older, Esc restores", () => {
  const e = new Editor(["git status", "ls", "git log", "echo"]);
  type(e, "x\x12git");
  assert.deepEqual(e.view("> ").lines, ["(reverse-i-search)'git': git log"]);
  type(e, "\x12");
  assert.deepEqual(e.view("> ").lines, ["(reverse-i-search)'git': git status"]);
  type(e, "\r");
  assert.equal(e.searching, false);
  assert.equal(e.text, "git status");
  type(e, "\x15\x12zzz");
  assert.deepEqual(e.view("> ").lines, ["(reverse-i-search, no match)'zzz': "]);
  type(e, "\x1b");
  assert.equal(e.text, "");
});

Deno.test("a multi-line paste is a placeholder that never submits and expands on Enter", () => {
  const e = new Editor();
  const pasted = "line 1\nline 2\nline 3";
  assert.deepEqual(type(e, `look: \x1b[200~${pasted}\r\n\x1b[201~`), []);
  assert.equal(e.text, "look: [paste #1: 4 lines, 21 chars]");
  assert.deepEqual(type(e, " ok\r"), [{ type: "submit", text: `look: ${pasted}\n ok` }]);
  // Backspace takes a placeholder out whole; a short one-line paste is inserted as typed.
  type(e, "\x1b[200~a\nb\x1b[201~\x7f\x1b[200~short\x1b[201~");
  assert.equal(e.text, "short");
});

Deno.test("the view puts the prompt before the first line, indents the others and places the cursor", () => {
  const e = new Editor();
  type(e, "ab\ncd\x1b[D");
  assert.deepEqual(e.view("› "), {
    lines: ["› ab", "  cd"],
    cursor: { line: 1, col: 3 },
  });
  const secret = new Editor([], { mask: true });
  type(secret, "sk-123");
  assert.deepEqual(secret.view("key ").lines, ["key ******"]);
});
