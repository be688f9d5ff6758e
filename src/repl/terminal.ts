/**
 * The REPL's terminal: raw keyboard input, output written in full, the size, resize and
 * bracketed paste. The only place the REPL touches Deno.stdin and Deno.stdout.
 */
import type { Output } from "./screen.ts";

/** What the REPL needs of a terminal. */
export interface Terminal extends Output {
  /** Reads input chunks until `stop` is called (or input ends). */
  input(): AsyncIterable<Uint8Array>;
  /** Raw mode (keys arrive one by one, no echo, Ctrl-C as a byte) and bracketed paste. */
  start(): void;
  /** Restores the terminal (cooked mode, no bracketed paste). */
  stop(): void;
  /** Calls `fn` when the window size changes; returns the unsubscribe. */
  onResize(fn: () => void): () => void;
}

const encoder = new TextEncoder();

/** The process's terminal (stdin and stdout are terminals). */
export function processTerminal(): Terminal {
  let raw = false;
  return {
    write(text: string) {
      let bytes = encoder.encode(text);
      while (bytes.length) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
    },
    size() {
      return usableSize(() => Deno.consoleSize());
    },
    async *input() {
      const buffer = new Uint8Array(4096);
      while (true) {
        let n: number | null;
        try {
          n = await Deno.stdin.read(buffer);
        } catch {
          return; // stdin closed under us (terminal gone)
        }
        if (n === null) return;
        yield buffer.slice(0, n);
      }
    },
    start() {
      Deno.stdin.setRaw(true, { cbreak: false });
      raw = true;
      this.write("\x1b[?2004h");
    },
    stop() {
      this.write("\x1b[?2004l");
      if (raw) Deno.stdin.setRaw(false);
      raw = false;
    },
    onResize(fn) {
      try {
        Deno.addSignalListener("SIGWINCH", fn);
        return () => Deno.removeSignalListener("SIGWINCH", fn);
      } catch {
        return () => {};
      }
    },
  };
}

/**
 * The terminal's size, or 80 x 24 when it cannot be read or reads as zero (a pseudo-terminal
 * whose size was never set, as under `script` without one): a zero width would wrap every line
 * into nothing and move the cursor by an infinite number of rows.
 */
export function usableSize(read: () => { columns: number; rows: number }): {
  columns: number;
  rows: number;
} {
  try {
    const { columns, rows } = read();
    if (columns >= 1 && rows >= 1) return { columns, rows };
  } catch {
    // not a terminal after all
  }
  return { columns: 80, rows: 24 };
}
