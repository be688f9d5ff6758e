/**
 * A headless terminal emulator (@xterm/headless) for REPL tests: bytes in, the screen and the
 * scrollback out as text, plus every byte written (to look for forbidden sequences).
 */
import xterm from "@xterm/headless";

/** An emulated terminal of `columns` x `rows`. */
export class Emulator {
  readonly term: InstanceType<typeof xterm.Terminal>;
  raw = "";
  #writes: Promise<void> = Promise.resolve();

  constructor(public columns = 60, public rows = 12) {
    this.term = new xterm.Terminal({
      cols: columns,
      rows,
      allowProposedApi: true,
      scrollback: 1000,
    });
  }

  /** Feeds bytes (as the terminal would receive them). */
  write(text: string): void {
    this.raw += text;
    this.#writes = this.#writes.then(() => new Promise<void>((r) => this.term.write(text, r)));
  }

  size() {
    return { columns: this.columns, rows: this.rows };
  }

  /** Resizes the terminal, which rewraps (reflows) its rows as terminals do. */
  async resize(columns: number, rows = this.rows): Promise<void> {
    await this.#writes;
    this.term.resize(columns, rows);
    this.columns = columns;
    this.rows = rows;
  }

  /** Every line: scrollback then the viewport, trailing blank lines dropped. */
  async lines(): Promise<string[]> {
    await this.#writes;
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < buffer.length; i++) out.push(buffer.getLine(i)!.translateToString(true));
    while (out.length && out.at(-1) === "") out.pop();
    return out;
  }

  /** The viewport's rows only. */
  async viewport(): Promise<string[]> {
    await this.#writes;
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.rows; i++) {
      out.push(buffer.getLine(buffer.viewportY + i)!.translateToString(true));
    }
    return out;
  }

  /** The cursor's row in the viewport and column. */
  async cursor(): Promise<{ row: number; col: number }> {
    await this.#writes;
    const b = this.term.buffer.active;
    return { row: b.cursorY, col: b.cursorX };
  }

  dispose(): void {
    this.term.dispose();
  }
}

/** Sequences the REPL must never write: alternate screen, clear-screen and erase-below. */
export const FORBIDDEN: Record<string, string> = {
  "alternate screen (1049)": "\x1b[?1049h",
  "alternate screen (47)": "\x1b[?47h",
  "alternate screen (1047)": "\x1b[?1047h",
  "clear screen (2J)": "\x1b[2J",
  "clear scrollback (3J)": "\x1b[3J",
  "full reset (RIS)": "\x1bc",
  // Erasing below from the top of an empty screen clears all of it: tmux (scroll-on-clear) then
  // copies the screen into the scrollback, which left stale live regions above the banner.
  "erase below (J)": "\x1b[J",
  "erase below (0J)": "\x1b[0J",
};

/** The forbidden sequences found in `raw`. */
export function forbiddenIn(raw: string): string[] {
  return Object.entries(FORBIDDEN).filter(([, seq]) => raw.includes(seq)).map(([name]) => name);
}
