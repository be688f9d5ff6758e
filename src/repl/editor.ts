// deno-lint-ignore-file no-control-regex
/**
 * The line editor: a text buffer and cursor driven by key events (the key table of docs/repl.md).
 * Pure state, no I/O: `handle` returns what the REPL should do (submit, exit, cancel, complete).
 * Multi-line input (Ctrl-J, Alt-Enter, Shift-Enter or a trailing backslash), history with Up and
 * Down, Ctrl-R reverse search, and pastes: a large or multi-line paste is shown as a placeholder
 * and expanded on submit; a paste never submits by itself. A pasted image (pasted_image.ts) is a
 * placeholder too, `[image 1: shot.png]`: it stays in the text that is sent, and its image goes
 * with it while the placeholder is whole.
 */
import type { ToolImage } from "../tool/types.ts";
import type { KeyEvent } from "./keys.ts";
import { textWidth } from "./width.ts";

/** What a key asks of the REPL. */
export type EditorAction =
  /** `images`: those of the pasted-image placeholders the text holds, when any. */
  | { type: "submit"; text: string; images?: ToolImage[] }
  | { type: "exit" }
  | { type: "interrupt" }
  | { type: "cleared" }
  | { type: "escape" }
  | { type: "tab" }
  | { type: "none" };

/** A paste longer than this, or with a line break, becomes a placeholder. */
export const PASTE_INLINE_MAX = 200;

const PLACEHOLDER = /\[paste #(\d+): [^\]\n]*\]/g;
const IMAGE_PLACEHOLDER = /\[image (\d+): [^\]\n]*\]/g;
/**
 * The pasted images kept for their placeholders, newest: a prompt recalled with Up (or put back
 * after a refusal) brings its images back while they are among these.
 */
const KEPT_IMAGES = 16;

interface Search {
  query: string;
  /** History index of the match shown; -1 when none. */
  at: number;
  saved: { text: string; cursor: number };
}

export class Editor {
  text = "";
  cursor = 0;
  /** A line shown under the input (completion candidates, hints); cleared by the next key. */
  hint = "";
  #history: string[];
  #historyAt: number;
  #draft = "";
  #search: Search | null = null;
  #pastes = new Map<number, string>();
  #pasteCount = 0;
  #images = new Map<number, ToolImage>();
  #imageCount = 0;

  constructor(history: string[] = [], readonly options: { mask?: boolean } = {}) {
    this.#history = history;
    this.#historyAt = history.length;
  }

  /** Whether reverse search is on. */
  get searching(): boolean {
    return this.#search !== null;
  }

  /** Applies one key. */
  handle(key: KeyEvent): EditorAction {
    this.hint = "";
    if (this.#search) return this.#searchKey(key);
    if (key.name === "paste") {
      this.#paste(key.text ?? "");
      return { type: "none" };
    }
    return key.ctrl && !key.meta ? this.#ctrlKey(key) : this.#plainKey(key);
  }

  /** A Ctrl key: editing, moving, history and search; an unbound one does nothing. */
  #ctrlKey(key: KeyEvent): EditorAction {
    switch (key.name) {
      case "c":
        if (!this.text) return { type: "interrupt" };
        this.#set("", 0);
        return { type: "cleared" };
      case "d":
        if (!this.text) return { type: "exit" };
        this.#deleteForward();
        return { type: "none" };
      case "a":
        this.cursor = this.#lineStart();
        return { type: "none" };
      case "e":
        this.cursor = this.#lineEnd();
        return { type: "none" };
      case "b":
        this.#move(-1);
        return { type: "none" };
      case "f":
        this.#move(1);
        return { type: "none" };
      case "k":
        this.#set(
          this.text.slice(0, this.cursor) + this.text.slice(this.#lineEnd()),
          this.cursor,
        );
        return { type: "none" };
      case "u": {
        const start = this.#lineStart();
        this.#set(this.text.slice(0, start) + this.text.slice(this.cursor), start);
        return { type: "none" };
      }
      case "w":
        this.#deleteWordBack();
        return { type: "none" };
      case "r":
        this.#startSearch();
        return { type: "none" };
      case "p":
        this.#historyStep(-1);
        return { type: "none" };
      case "n":
        this.#historyStep(1);
        return { type: "none" };
      case "enter":
        this.#insert("\n");
        return { type: "none" };
      case "left":
        this.#wordMove(-1);
        return { type: "none" };
      case "right":
        this.#wordMove(1);
        return { type: "none" };
    }
    return { type: "none" };
  }

  /** A key without Ctrl: Enter, Esc, Tab, deleting, moving, history, Alt words, or text. */
  #plainKey(key: KeyEvent): EditorAction {
    switch (key.name) {
      case "enter":
        if (key.meta || key.shift) {
          this.#insert("\n");
          return { type: "none" };
        }
        if (this.text.slice(0, this.cursor).endsWith("\\") && this.cursor === this.text.length) {
          this.#set(this.text.slice(0, -1) + "\n", this.text.length);
          return { type: "none" };
        }
        return this.#submit();
      case "escape":
        return { type: "escape" };
      case "tab":
        return key.shift ? { type: "none" } : { type: "tab" };
      case "backspace":
        this.#backspace();
        return { type: "none" };
      case "delete":
        this.#deleteForward();
        return { type: "none" };
      case "left":
        if (key.meta) this.#wordMove(-1);
        else this.#move(-1);
        return { type: "none" };
      case "right":
        if (key.meta) this.#wordMove(1);
        else this.#move(1);
        return { type: "none" };
      case "home":
        this.cursor = this.#lineStart();
        return { type: "none" };
      case "end":
        this.cursor = this.#lineEnd();
        return { type: "none" };
      case "up":
        if (this.text.lastIndexOf("\n", this.cursor - 1) < 0) this.#historyStep(-1);
        else this.#lineMove(-1);
        return { type: "none" };
      case "down":
        if (this.text.indexOf("\n", this.cursor) < 0) this.#historyStep(1);
        else this.#lineMove(1);
        return { type: "none" };
    }
    if (key.meta && key.name === "b") this.#wordMove(-1);
    else if (key.meta && key.name === "f") this.#wordMove(1);
    else if (key.meta && key.name === "backspace") this.#deleteWordBack();
    else if (key.text && !key.meta) this.#insert(key.text);
    return { type: "none" };
  }

  /** Replaces `[start, end)` of the text with `replacement` and puts the cursor after it. */
  replace(start: number, end: number, replacement: string): void {
    this.#set(
      this.text.slice(0, start) + replacement + this.text.slice(end),
      start + replacement.length,
    );
  }

  /** Sets the whole text (cursor at the end). */
  setText(text: string): void {
    this.#set(text, text.length);
  }

  /** Inserts a placeholder for each of `images` at the cursor: `[image 1: shot.png]`. */
  attachImages(images: readonly ToolImage[]): void {
    const tokens = images.map((image) => {
      const n = ++this.#imageCount;
      this.#images.set(n, image);
      if (this.#images.size > KEPT_IMAGES) this.#images.delete(this.#images.keys().next().value!);
      return `[image ${n}: ${(image.name ?? "image").replace(/[\x00-\x1f\x7f[\]]/g, "_")}]`;
    });
    this.#insert(tokens.join(" "));
  }

  /** The images whose placeholders `text` holds whole, in order (each once). */
  imagesIn(text: string): ToolImage[] {
    const found = new Set<ToolImage>();
    for (const m of text.matchAll(IMAGE_PLACEHOLDER)) {
      const image = this.#images.get(Number(m[1]));
      if (image) found.add(image);
    }
    return [...found];
  }

  /** The text with every paste placeholder replaced by what was pasted. */
  expanded(): string {
    return this.text.replace(PLACEHOLDER, (all, n) => this.#pastes.get(Number(n)) ?? all);
  }

  /** The input as lines for the live region, `prompt` before the first, and the cursor. */
  view(prompt: string): { lines: string[]; cursor: { line: number; col: number } } {
    if (this.#search) {
      const s = this.#search;
      const match = s.at >= 0 ? this.#history[s.at] : "";
      const head = `(reverse-i-search${s.at < 0 && s.query ? ", no match" : ""})'${s.query}': `;
      const first = match.split("\n")[0];
      return { lines: [head + first], cursor: { line: 0, col: textWidth(head) } };
    }
    const shown = this.options.mask ? this.text.replace(/[^\n]/g, "*") : this.text;
    const pad = " ".repeat(textWidth(prompt));
    const lines = shown.split("\n").map((line, i) => (i === 0 ? prompt : pad) + line);
    const before = shown.slice(0, this.cursor).split("\n");
    const line = before.length - 1;
    const col = textWidth(line === 0 ? prompt : pad) + textWidth(before[line]);
    return { lines, cursor: { line, col } };
  }

  #submit(): EditorAction {
    const text = this.expanded();
    const images = this.imagesIn(this.text);
    if (this.text.trim() && !this.options.mask) {
      if (this.#history.at(-1) !== this.text) this.#history.push(this.text);
    }
    this.#historyAt = this.#history.length;
    this.#draft = "";
    this.#set("", 0);
    this.#pastes.clear();
    return { type: "submit", text, ...(images.length ? { images } : {}) };
  }

  #paste(text: string): void {
    if (text.includes("\n") || text.length > PASTE_INLINE_MAX) {
      const n = ++this.#pasteCount;
      this.#pastes.set(n, text);
      const lines = text.split("\n").length;
      this.#insert(`[paste #${n}: ${lines} line${lines === 1 ? "" : "s"}, ${text.length} chars]`);
    } else this.#insert(text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ""));
  }

  #insert(text: string): void {
    this.#set(
      this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor),
      this.cursor + text.length,
    );
  }

  #set(text: string, cursor: number): void {
    this.text = text;
    this.cursor = Math.max(0, Math.min(cursor, text.length));
  }

  #move(delta: number): void {
    const cp = delta < 0
      ? prevCodePoint(this.text, this.cursor)
      : nextCodePoint(this.text, this.cursor);
    this.cursor = cp;
  }

  #backspace(): void {
    if (this.cursor === 0) return;
    const before = this.text.slice(0, this.cursor);
    const token = /\[(?:paste #|image )\d+: [^\]\n]*\]$/.exec(before);
    const start = token ? token.index : prevCodePoint(this.text, this.cursor);
    this.#set(this.text.slice(0, start) + this.text.slice(this.cursor), start);
  }

  #deleteForward(): void {
    if (this.cursor >= this.text.length) return;
    const end = nextCodePoint(this.text, this.cursor);
    this.#set(this.text.slice(0, this.cursor) + this.text.slice(end), this.cursor);
  }

  #deleteWordBack(): void {
    const before = this.text.slice(0, this.cursor);
    const start = before.replace(/\S+\s*$|\s+$/, "").length;
    this.#set(this.text.slice(0, start) + this.text.slice(this.cursor), start);
  }

  #wordMove(delta: number): void {
    if (delta < 0) {
      this.cursor = this.text.slice(0, this.cursor).replace(/\S+\s*$|\s+$/, "").length;
    } else {
      const m = /^\s*\S+/.exec(this.text.slice(this.cursor));
      this.cursor += m ? m[0].length : this.text.length - this.cursor;
    }
  }

  #lineStart(): number {
    return this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  #lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end < 0 ? this.text.length : end;
  }

  #lineMove(delta: number): void {
    const col = this.cursor - this.#lineStart();
    if (delta < 0) {
      const prevEnd = this.#lineStart() - 1;
      const prevStart = this.text.lastIndexOf("\n", prevEnd - 1) + 1;
      this.cursor = Math.min(prevStart + col, prevEnd);
    } else {
      const nextStart = this.#lineEnd() + 1;
      const nextEnd = this.text.indexOf("\n", nextStart);
      this.cursor = Math.min(nextStart + col, nextEnd < 0 ? this.text.length : nextEnd);
    }
  }

  #historyStep(delta: number): void {
    const next = this.#historyAt + delta;
    if (next < 0 || next > this.#history.length) return;
    if (this.#historyAt === this.#history.length) this.#draft = this.text;
    this.#historyAt = next;
    this.setText(next === this.#history.length ? this.#draft : this.#history[next]);
  }

  #startSearch(): void {
    this.#search = { query: "", at: -1, saved: { text: this.text, cursor: this.cursor } };
  }

  /** The newest history index before `from` whose entry contains `query`; -1 when none. */
  #find(query: string, from: number): number {
    for (let i = Math.min(from, this.#history.length) - 1; i >= 0; i--) {
      if (this.#history[i].includes(query)) return i;
    }
    return -1;
  }

  #searchKey(key: KeyEvent): EditorAction {
    const s = this.#search!;
    if (key.ctrl && key.name === "r") {
      const older = this.#find(s.query, s.at < 0 ? this.#history.length : s.at);
      if (older >= 0) s.at = older;
      return { type: "none" };
    }
    if ((key.ctrl && (key.name === "g" || key.name === "c")) || key.name === "escape") {
      this.#search = null;
      this.#set(s.saved.text, s.saved.cursor);
      return { type: "none" };
    }
    if (key.name === "backspace") {
      s.query = s.query.slice(0, -1);
      s.at = s.query ? this.#find(s.query, this.#history.length) : -1;
      return { type: "none" };
    }
    if (key.text && !key.ctrl && !key.meta && key.name !== "paste") {
      s.query += key.text;
      s.at = this.#find(s.query, s.at < 0 ? this.#history.length : s.at + 1);
      return { type: "none" };
    }
    // Any other key accepts the match; Enter only accepts (a second Enter submits).
    this.#search = null;
    if (s.at >= 0) {
      this.#historyAt = s.at;
      this.setText(this.#history[s.at]);
    } else this.#set(s.saved.text, s.saved.cursor);
    if (key.name === "enter") return { type: "none" };
    return this.handle(key);
  }
}

function prevCodePoint(text: string, at: number): number {
  if (at <= 0) return 0;
  const low = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1;
}

function nextCodePoint(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const cp = text.codePointAt(at)!;
  return at + (cp > 0xffff ? 2 : 1);
}
