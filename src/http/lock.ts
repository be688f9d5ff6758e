/** Thrown by `Mutex.run` when the wait queue is full. */
export class QueueFullError extends Error {
  override name = "QueueFullError";
}

/**
 * A small FIFO async mutex: `run(fn)` executes `fn` when every earlier holder has finished.
 * At most `maxWaiting` callers wait (more are refused with QueueFullError); a waiter whose signal
 * aborts leaves the queue and rejects with the signal's reason.
 */
export class Mutex {
  #busy = false;
  #waiting: Array<{ grant(): void }> = [];

  constructor(readonly maxWaiting = Infinity) {}

  /** Whether a holder is running. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Number of callers waiting for the lock. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` holding the lock; the lock is released however `fn` ends. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (!this.#busy) {
      this.#busy = true;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.maxWaiting) {
      return Promise.reject(new QueueFullError(`${this.#waiting.length} requests are waiting`));
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#waiting = this.#waiting.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next.grant();
    else this.#busy = false;
  }
}
