import assert from "node:assert/strict";
import { layout, type LiveView, Screen } from "../../src/repl/screen.ts";
import { makeStyle } from "../../src/repl/style.ts";
import { TurnView } from "../../src/repl/turn_view.ts";
import type { TurnResult } from "../../src/engine/events.ts";
import { Emulator, forbiddenIn } from "./_xterm.ts";
import { usableSize } from "../../src/repl/terminal.ts";

function setup(columns = 30, rows = 8) {
  const term = new Emulator(columns, rows);
  let view: LiveView = { lines: ["> "], cursor: { line: 0, col: 2 } };
  const screen = new Screen(term, () => view, { tty: true });
  return { term, screen, set: (v: LiveView) => (view = v) };
}

Deno.test("committed lines go to the scrollback above a live region that is repainted in place", async () => {
  const { term, screen, set } = setup();
  screen.paint();
  screen.commit("first answer line");
  set({ lines: ["⠋ working", "> hel"], cursor: { line: 1, col: 5 } });
  screen.paint();
  set({ lines: ["> hello"], cursor: { line: 0, col: 7 } });
  screen.commit("second line");
  screen.paint();
  assert.deepEqual(await term.lines(), ["first answer line", "second line", "> hello"]);
  assert.deepEqual(await term.cursor(), { row: 2, col: 7 });
  // Every repaint is one synchronized update; nothing clears the screen or leaves it.
  assert.equal(term.raw.split("\x1b[?2026h").length, term.raw.split("\x1b[?2026l").length);
  assert.deepEqual(forbiddenIn(term.raw), []);
  term.dispose();
});

Deno.test("the live region wraps long lines and never grows past the viewport", async () => {
  const { term, screen, set } = setup(10, 5);
  for (let i = 1; i <= 12; i++) screen.commit(`line ${i}`);
  set({ lines: ["a".repeat(25), "b", "c", "d", "> x"], cursor: { line: 4, col: 3 } });
  screen.paint();
  const viewport = await term.viewport();
  // At most rows - 1 live rows; the cursor's row (the input) stays in view.
  assert.deepEqual(viewport, ["line 12", "b", "c", "d", "> x"]);
  assert.deepEqual(await term.cursor(), { row: 4, col: 3 });
  // Scrollback keeps every committed line in order.
  assert.deepEqual(
    (await term.lines()).slice(0, 12),
    Array.from({ length: 12 }, (_, i) => `line ${i + 1}`),
  );
  term.dispose();
});

Deno.test("layout keeps the cursor row in view and places the cursor after a full row", () => {
  assert.deepEqual(
    layout({ lines: ["abcd"], cursor: { line: 0, col: 4 } }, { columns: 4, max: 3 }),
    {
      rows: ["abcd", ""],
      cursorRow: 1,
      cursorCol: 0,
    },
  );
  const many = { lines: ["1", "2", "3", "4", "5"], cursor: { line: 1, col: 1 } };
  assert.deepEqual(layout(many, { columns: 10, max: 2 }), {
    rows: ["1", "2"],
    cursorRow: 1,
    cursorCol: 1,
  });
  const last = { lines: ["1", "2", "3", "4", "5"], cursor: { line: 4, col: 0 } };
  assert.deepEqual(layout(last, { columns: 10, max: 3 }), {
    rows: ["3", "4", "5"],
    cursorRow: 2,
    cursorCol: 0,
  });
});

Deno.test("close erases the live region and leaves only the scrollback", async () => {
  const { term, screen, set } = setup();
  screen.commit("kept");
  set({ lines: ["⠋ spinner", "> typed"], cursor: { line: 1, col: 7 } });
  screen.paint();
  screen.close();
  screen.commit("ignored after close");
  assert.deepEqual(await term.lines(), ["kept"]);
  term.dispose();
});

Deno.test("a non-terminal screen writes committed text only, with no escape sequences", () => {
  let written = "";
  const screen = new Screen(
    { write: (t) => (written += t), size: () => ({ columns: 80, rows: 24 }) },
    () => ({ lines: ["> "], cursor: { line: 0, col: 2 } }),
    { tty: false },
  );
  screen.commit("one");
  screen.paint();
  screen.commit("two\n");
  screen.close();
  assert.equal(written, "one\ntwo\n");
});

const RESULT: TurnResult = {
  content: "",
  thinking: "",
  tool_calls: [],
  errors: [],
  duration: 1.24,
  usage: { completion_tokens: 7 },
  model: "m",
  provider: "p",
  session: "s",
  status: "ok",
  cost_usd: null,
  reason: "answered",
  rounds: 1,
  context: { estimated_tokens: 0, window: null },
};

Deno.test("a turn on screen: thinking summary, answer lines, tool lines, no persisted status", async () => {
  const term = new Emulator(60, 12);
  const style = makeStyle(false);
  let turn: TurnView | null = null;
  const screen = new Screen(term, () => ({ lines: turn ? turn.lines(60, 0) : [], cursor: null }));
  const commit = (text: string) => screen.commit(text);
  turn = new TurnView(commit, style, {
    show_thinking: false,
    tool_status_visible: true,
    markdown_streaming: false,
    delegate_echo: true,
    clear_screen: false,
  });
  turn.event({ type: "thinking", content: "hmm" });
  screen.paint();
  assert.match((await term.viewport())[0], /^⠋ thinking \d\.\d s \(Esc to cancel\)$/);
  turn.event({ type: "token", content: "Reading it\nnow" });
  screen.paint();
  assert.deepEqual((await term.lines()).slice(1), ["Reading it", "now"]);
  turn.event({
    type: "tool_start",
    call: { id: "c1", type: "function", function: { name: "file_read", arguments: "{}" } },
    name: "file_read",
    args: { path: "a.txt" },
  });
  screen.paint();
  assert.deepEqual((await term.lines()).slice(1), [
    "Reading it",
    "now",
    '⠋ file_read {"path":"a.txt"}',
  ]);
  turn.event({
    type: "tool_end",
    id: "c1",
    name: "file_read",
    ok: true,
    content: "x",
    decision: "allow",
  });
  turn.event({
    type: "tool_start",
    call: { id: "c2", type: "function", function: { name: "run_command", arguments: "{}" } },
    name: "run_command",
    args: { command: "ls" },
  });
  turn.event({
    type: "tool_end",
    id: "c2",
    name: "run_command",
    ok: false,
    content: "[cancelled]",
    decision: "deny",
  });
  turn.event({ type: "token", content: "Done." });
  turn.finish(RESULT);
  turn = null;
  screen.close();
  const lines = await term.lines();
  assert.match(lines[0], /^thought for \d\.\d s$/);
  assert.deepEqual(lines.slice(1), [
    "Reading it",
    "now",
    '✓ file_read {"path":"a.txt"}',
    '✗ run_command {"command":"ls"} denied',
    "Done.",
    "✓ ok in 1.2 s, 7 completion tokens",
  ]);
  term.dispose();
});

Deno.test("a live region repainted at the top of an empty screen leaves nothing behind and never erases below", async () => {
  const { term, screen, set } = setup(40, 10);
  set({ lines: ["> ", "loading..."], cursor: { line: 0, col: 2 } });
  screen.paint();
  set({ lines: ["⠙ loading", "> ", "loading..."], cursor: { line: 1, col: 2 } });
  screen.paint();
  screen.commit("banner");
  set({ lines: ["> ", "model m"], cursor: { line: 0, col: 2 } });
  screen.paint();
  assert.deepEqual(await term.lines(), ["banner", "> ", "model m"]);
  assert.deepEqual(forbiddenIn(term.raw), []);
  term.dispose();
});

Deno.test("a terminal size that reads as zero or fails is taken as 80 x 24", () => {
  assert.deepEqual(usableSize(() => ({ columns: 0, rows: 0 })), { columns: 80, rows: 24 });
  assert.deepEqual(
    usableSize(() => {
      throw new Error("not a terminal");
    }),
    { columns: 80, rows: 24 },
  );
  assert.deepEqual(usableSize(() => ({ columns: 120, rows: 40 })), { columns: 120, rows: 40 });
});

Deno.test("after the terminal gets narrower the repaint erases the rewrapped live region, leaving no stray rows", async () => {
  const { term, screen, set } = setup(40, 10);
  screen.commit("banner");
  const typed = "> " + "word ".repeat(7) + "end";
  set({ lines: [typed, "model m"], cursor: { line: 0, col: typed.length } });
  screen.paint();
  await term.resize(20);
  set({ lines: [typed + "X", "model m"], cursor: { line: 0, col: typed.length + 1 } });
  screen.paint();
  assert.deepEqual(await term.lines(), [
    "banner",
    "> word word word wor",
    "d word word word end",
    "X",
    "model m",
  ]);
  await term.resize(40);
  set({ lines: [typed + "XY", "model m"], cursor: { line: 0, col: typed.length + 2 } });
  screen.paint();
  // Back at 40 columns: the rows written at 20 stay as they were (hard line breaks) and are
  // erased one by one; the input wraps at 40 now.
  assert.deepEqual((await term.lines()).filter((l) => l !== ""), [
    "banner",
    typed,
    "XY",
    "model m",
  ]);
  term.dispose();
});
