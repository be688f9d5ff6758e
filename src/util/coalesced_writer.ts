import { startTimer } from "./timer.ts";

/**
 * Streamed text written in batches: while tokens arrive, at most one write per frame (16 ms) or
 * per 64 KiB reaches the sink, instead of one system call per token. A terminal repaints no faster
 * than that, so nothing looks slower, and a 4,000-chunk answer costs a few dozen writes.
 */
export class CoalescedWriter {
  #pending: string[] = [];
  #size = 0;
  #cancelTimer: (() => void) | undefined;
  readonly #encoder = new TextEncoder();

  /** `sink` writes synchronously and may write less than it is given (it returns the count). */
  constructor(
    private readonly sink: (bytes: Uint8Array) => number,
    private readonly frameMs = 16,
    private readonly maxChars = 64 * 1024,
  ) {}

  /** Queues `text`; it is written within one frame, or now when the batch is full. */
  write(text: string): void {
    if (text === "") return;
    this.#pending.push(text);
    this.#size += text.length;
    if (this.#size >= this.maxChars) this.flush();
    else this.#cancelTimer ??= startTimer(this.frameMs, () => this.flush());
  }

  /** Writes everything queued now (before other output, and before exiting). */
  flush(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    if (this.#size === 0) return;
    const bytes = this.#encoder.encode(this.#pending.join(""));
    this.#pending = [];
    this.#size = 0;
    let written = 0;
    while (written < bytes.length) written += this.sink(bytes.subarray(written));
  }
}
