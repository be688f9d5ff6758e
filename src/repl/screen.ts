/**
 * The inline renderer. Output has two parts: committed lines, written once into the terminal's
 * normal scrollback (copy, search and tmux scrolling keep working), and a live region of a few
 * rows below them (spinner, status, the streaming tail, the input, a question) that is erased and
 * repainted in place inside synchronized output (`CSI ?2026h` ... `CSI ?2026l`). The live region
 * never grows past the viewport. No alternate screen and no clear-screen sequence is ever
 * written: the only erase is `CSI 2K` on each of the live region's own rows. (Not `CSI J` from
 * its first row down: while the region sits at the top of an empty screen that erases the whole
 * screen, which tmux, with its default `scroll-on-clear`, copies into the scrollback first.)
 *
 * On a non-terminal output there is no live region: committed lines are written as plain text.
 */
import { textWidth, wrapLine } from "./width.ts";

/** Where the screen writes, and how big the terminal is. */
export interface Output {
  write(text: string): void;
  /** Columns and rows of the terminal. */
  size(): { columns: number; rows: number };
}

/** The live region as logical lines, and where the input cursor is (null hides it). */
export interface LiveView {
  lines: string[];
  cursor: { line: number; col: number } | null;
}

/** Frames are at most this often (ms): streamed tokens and keys repaint once per frame. */
export const FRAME_MS = 16;

const SYNC_ON = "\x1b[?2026h";
const SYNC_OFF = "\x1b[?2026l";

export class Screen {
  #pending: string[] = [];
  /** Row of the cursor inside the painted live region, counted from its first row. */
  #cursorRow = 0;
  #cursorCol = 0;
  /** Display width of each painted row of the live region, and the terminal width then. */
  #paintedWidths: number[] = [];
  #paintedColumns = 0;
  #painted = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = 0;
  #closed = false;
  #suspended = false;

  constructor(
    readonly out: Output,
    readonly live: () => LiveView,
    readonly options: { tty: boolean; maxLiveRows?: number } = { tty: true },
  ) {}

  /** Adds text to the scrollback (a line break is added when missing); painted next frame. */
  commit(text: string): void {
    if (this.#closed) return;
    const line = text.endsWith("\n") ? text.slice(0, -1) : text;
    if (!this.options.tty) {
      this.out.write(`${line}\n`);
      return;
    }
    this.#pending.push(line);
    this.schedule();
  }

  /** Repaints within one frame (at once when the last paint is a frame old). */
  schedule(): void {
    if (!this.options.tty || this.#closed || this.#suspended || this.#timer !== undefined) return;
    const wait = Math.max(0, FRAME_MS - (performance.now() - this.#last));
    if (wait === 0) {
      this.paint();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.paint();
    }, wait);
  }

  /** Writes the committed lines and repaints the live region now. */
  paint(): void {
    if (!this.options.tty || this.#closed || this.#suspended) return;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#last = performance.now();
    this.out.write(this.#frame(this.live()));
  }

  /**
   * Ctrl-L: scrolls what the window shows into the scrollback (nothing is erased but the live
   * region, so the scrollback keeps it all) and repaints the live region at the top.
   */
  redraw(): void {
    if (!this.options.tty || this.#closed) return;
    const { rows } = this.out.size();
    const scroll = "\n".repeat(Math.max(0, rows - 1));
    this.out.write(`${SYNC_ON}${this.#erase()}${scroll}\x1b[H${SYNC_OFF}`);
    this.#painted = false;
    this.paint();
  }

  /**
   * Erases the live region (committed lines are written first) and paints nothing until `resume`:
   * another program has the terminal meanwhile (the external editor).
   */
  suspend(): void {
    if (!this.options.tty || this.#closed) return;
    this.paint();
    this.out.write(`${SYNC_ON}${this.#erase()}\x1b[?25h${SYNC_OFF}`);
    this.#painted = false;
    this.#suspended = true;
  }

  /** Paints again after `suspend`, below what the other program left. */
  resume(): void {
    this.#suspended = false;
    this.paint();
  }

  /** Erases the live region and writes what is committed; nothing is painted after this. */
  close(): void {
    if (this.#closed) return;
    if (this.options.tty) {
      this.paint();
      this.out.write(`${SYNC_ON}${this.#erase(this.out.size().columns)}\x1b[?25h${SYNC_OFF}`);
      this.#painted = false;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#closed = true;
  }

  /**
   * Erases each row of the live region and leaves the cursor on its first row. After the terminal
   * got narrower, it has rewrapped (reflowed) each painted row that no longer fits into several
   * rows, and moved the cursor with its text: the rows and the cursor are counted at the new width.
   */
  #erase(columns = this.#paintedColumns): string {
    if (!this.#painted) return "\r";
    const up = (n: number) => (n > 0 ? `\x1b[${n}A` : "");
    const width = Math.max(1, columns);
    const heights = this.#paintedWidths.map((w) => Math.max(1, Math.ceil(w / width)));
    const above = heights.slice(0, this.#cursorRow).reduce((a, b) => a + b, 0);
    const cursorY = above + Math.floor(this.#cursorCol / width);
    const rows = Math.max(1, heights.reduce((a, b) => a + b, 0));
    const lines = Array.from({ length: rows }, () => "\x1b[2K").join("\x1b[1B");
    return `\r${up(cursorY)}${lines}${up(rows - 1)}`;
  }

  #frame(view: LiveView): string {
    const { columns, rows } = this.out.size();
    let text = `${SYNC_ON}\x1b[?25l${this.#erase(columns)}`;
    if (this.#pending.length) {
      text += this.#pending.join("\n").replaceAll("\n", "\r\n") + "\r\n";
      this.#pending = [];
    }
    const max = Math.max(1, Math.min(rows - 1, this.options.maxLiveRows ?? rows - 1));
    const { rows: live, cursorRow, cursorCol } = layout(view, { columns, max });
    text += live.join("\r\n");
    const up = live.length - 1 - cursorRow;
    text += `\r${up > 0 ? `\x1b[${up}A` : ""}${cursorCol > 0 ? `\x1b[${cursorCol}C` : ""}`;
    if (view.cursor) text += "\x1b[?25h";
    text += SYNC_OFF;
    this.#cursorRow = cursorRow;
    this.#cursorCol = cursorCol;
    this.#paintedWidths = live.map(textWidth);
    this.#paintedColumns = columns;
    this.#painted = true;
    return text;
  }
}

/**
 * The live region's rows at `columns` wide, at most `max` of them (the last ones, or those ending
 * at the cursor's row when it is above them), and the cursor's row and column among them.
 */
export function layout(
  view: LiveView,
  { columns, max }: { columns: number; max: number },
): { rows: string[]; cursorRow: number; cursorCol: number } {
  const rows: string[] = [];
  let cursorRow = -1;
  let cursorCol = 0;
  view.lines.forEach((line, index) => {
    const wrapped = wrapLine(line, columns);
    if (view.cursor?.line === index) {
      const col = Math.min(view.cursor.col, textWidth(line));
      const row = Math.floor(col / columns);
      if (row >= wrapped.length) wrapped.push("");
      cursorRow = rows.length + row;
      cursorCol = col % columns;
    }
    rows.push(...wrapped);
  });
  if (rows.length === 0) rows.push("");
  if (cursorRow < 0) {
    cursorRow = rows.length - 1;
    cursorCol = 0;
  }
  if (rows.length <= max) return { rows, cursorRow, cursorCol };
  // The last rows, unless the cursor is above them: then the rows ending at the cursor's.
  const from = Math.min(rows.length - max, Math.max(0, cursorRow + 1 - max));
  const shown = rows.slice(from, from + max);
  return { rows: shown, cursorRow: cursorRow - from, cursorCol };
}
