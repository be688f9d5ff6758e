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
      try {
        return Deno.consoleSize();
      } catch {
        return { columns: 80, rows: 24 };
      }
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
