/** Test support: a real child process that keeps exchanging two paths (a folder and a link). */
import { readThroughFirstLine } from "./read_line.ts";

/** A running racer; `stop` ends it and resolves the number of exchanges it made. */
export interface SwapRacer {
  stop(): Promise<number>;
}

/**
 * Starts a child process exchanging `a` and `b` atomically until stopped (at most 60 s); resolves
 * once the first exchange happened. Linux only (renameat2 through FFI). With `restMs` the racer
 * rests that long after each burst of 50 exchanges instead of spinning a whole core: for writes
 * that take milliseconds each (a bubblewrap start), a burst every millisecond still meets them.
 */
export async function startSwapRacer(
  a: string,
  b: string,
  { restMs = 0 }: { restMs?: number } = {},
): Promise<SwapRacer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      new URL("./swap_racer_child.ts", import.meta.url).pathname,
      a,
      b,
      String(restMs),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = await readThroughFirstLine(lines);
  if (!text.startsWith("ready\n")) {
    await child.status;
    throw new Error(`the swap racer did not start: ${text}`);
  }
  return {
    async stop() {
      child.kill("SIGTERM");
      for (;;) {
        const { value, done } = await lines.read();
        if (done) break;
        text += value;
      }
      await child.status;
      return Number(text.slice("ready\n".length).trim());
    },
  };
}
