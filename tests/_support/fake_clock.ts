/**
 * Fake time for daemons that take a clock (the fleet supervisor, the listener watchdog): time
 * moves only when a test calls `advance`, which runs what fell due in order.
 */

interface Timer {
  at: number;
  fire: () => void;
  /** Set for an `every` timer: its period. */
  period?: number;
}

export class FakeClock {
  #now: number;
  #timers = new Set<Timer>();
  #waiters: (() => void)[] = [];

  constructor(start = Date.parse("2026-01-01T00:00:00Z")) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Resolves after `ms` of fake time, or false at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer: Timer = {
        at: this.#now + ms,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        this.#timers.delete(timer);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#add(timer);
    });
  }

  async delay(ms: number): Promise<void> {
    await this.sleep(ms);
  }

  /** Calls `fn` every `ms` of fake time until the returned stop. */
  every(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#now + ms, fire: fn, period: ms };
    this.#add(timer);
    return () => this.#timers.delete(timer);
  }

  /** Resolves once something waits on this clock that was not waiting at the call. */
  waiting(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Timers pending (sleeps and delays; `every` timers included). */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time `ms` forward, firing each timer that falls due in order (microtasks run between). */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    while (true) {
      const due = [...this.#timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#now = Math.max(this.#now, due.at);
      if (due.period) due.at += due.period;
      else this.#timers.delete(due);
      due.fire();
      await flush();
    }
    this.#now = end;
    await flush();
  }

  #add(timer: Timer): void {
    this.#timers.add(timer);
    const waiters = this.#waiters.splice(0);
    for (const wake of waiters) wake();
  }
}

/** Lets pending promise callbacks run (a macrotask turn, no wait). */
function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
