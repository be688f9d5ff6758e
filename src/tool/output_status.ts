/** A command that ends sooner reports no output lines: it needs no progress. */
export const STATUS_AFTER_MS = 1000;
/** At most one output line is reported per this many milliseconds. */
export const STATUS_EVERY_MS = 250;

/**
 * Reports a running command's latest complete output line through `status` (the tool's activity
 * line, which a served call turns into MCP progress): only once the command has run for a second,
 * then at most four lines a second, always the latest. `push` takes the output as it is read;
 * `stop` ends the reporting when the command is done.
 */
export function outputStatus(status: (line: string) => void): {
  push(chunk: Uint8Array): void;
  stop(): void;
} {
  const started = Date.now();
  const decoder = new TextDecoder();
  let partial = "";
  let latest: string | undefined;
  let sentAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const send = () => {
    timer = undefined;
    if (stopped || latest === undefined) return;
    status(latest);
    latest = undefined;
    sentAt = Date.now();
  };
  return {
    push(chunk) {
      if (stopped) return;
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      const last = lines.map((line) => line.replace(/\r$/, "")).filter((l) => l.trim()).pop();
      if (last === undefined) return;
      latest = last;
      if (timer !== undefined) return;
      const due = Math.max(started + STATUS_AFTER_MS, sentAt + STATUS_EVERY_MS) - Date.now();
      if (due <= 0) send();
      else timer = setTimeout(send, due);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
