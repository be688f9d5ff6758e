/**
 * Fake time for the daemons that take a `Clock` (the jobs daemon and runner, the fleet supervisor,
 * the listener watchdog): the time moves only when a test moves it. A test waits for the code
 * under test to reach a wait (`sleeping(what)` for a named one, `waiting()` for any new one), then
 * moves the time: `advanceTo` jumps, `advance` steps through what falls due on the way.
 */
import type { Clock } from "../../src/util/time.ts";

interface Timer {
  at: number;
  /** The sleep's name, if it has one. */
  what?: string;
  fire(): void;
  /** Set for an `every` timer: its period. */
  period?: number;
}

/** How long (real time) `sleeping` waits for the code under test before it fails the test. */
const STUCK_MS = 15_000;

export class FakeClock implements Clock {
  #now: number;
  #timers = new Set<Timer>();
  #watchers = new Set<() => void>();

  constructor(start = Date.parse("2026-01-01T00:00:00Z")) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** The same fake time: it never steps back. */
  monotonic(): number {
    return this.#now;
  }

  /** Ends when the time reaches `ms` from now (at once for `ms` <= 0), or false when aborted. */
  sleep(ms: number, signal?: AbortSignal, what?: string): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#timers.delete(timer);
        resolve(false);
      };
      const timer: Timer = {
        at: this.#now + ms,
        what,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(true);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#add(timer);
    });
  }

  /** Calls `fn` every `ms` of fake time until the returned stop. */
  every(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.#now + ms, fire: fn, period: ms };
    this.#add(timer);
    return () => this.#timers.delete(timer);
  }

  /** The pending sleeps and `every` timers (with no name), earliest first. */
  pending(): Array<{ what: string | undefined; until: number }> {
    return this.#due(Infinity).map((t) => ({ what: t.what, until: t.at }));
  }

  /**
   * Resolves with the end of the earliest pending sleep named `what` as soon as there is one (the
   * code under test got there); fails when none comes within STUCK_MS of real time.
   */
  sleeping(what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.pending().find((s) => s.what === what);
        if (!found) return;
        this.#watchers.delete(check);
        clearTimeout(timer);
        resolve(found.until);
      };
      const timer = setTimeout(() => {
        this.#watchers.delete(check);
        const waits = this.pending().map((s) =>
          `${s.what} until ${new Date(s.until).toISOString()}`
        );
        reject(new Error(`nothing waits on "${what}"; pending: ${waits.join(", ") || "none"}`));
      }, STUCK_MS);
      this.#watchers.add(check);
      check();
    });
  }

  /** Resolves once a sleep or timer starts that was not pending at the call. */
  waiting(): Promise<void> {
    return new Promise((resolve) => {
      const started = () => {
        this.#watchers.delete(started);
        resolve();
      };
      this.#watchers.add(started);
    });
  }

  /**
   * Jumps to `time`: every sleep due by then ends, seeing `time` as now, and each `every` timer
   * due fires once (as a late interval does).
   */
  advanceTo(time: number): void {
    if (time < this.#now) throw new Error("the fake clock does not go back");
    this.#now = time;
    for (const timer of this.#due(time)) this.#fire(timer);
  }

  /** Waits for the sleep named `what`, jumps to its end and returns that time. */
  async next(what: string): Promise<number> {
    const until = await this.sleeping(what);
    this.advanceTo(until);
    return until;
  }

  /**
   * Moves the time `ms` forward in steps: each timer that falls due fires at its own time, in
   * order, with a macrotask turn after each for the code it wakes.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (let due = this.#due(end)[0]; due; due = this.#due(end)[0]) {
      this.#now = Math.max(this.#now, due.at);
      this.#fire(due);
      await flush();
    }
    this.#now = end;
    await flush();
  }

  /** The timers due by `time`, earliest first. */
  #due(time: number): Timer[] {
    return [...this.#timers].filter((t) => t.at <= time).sort((a, b) => a.at - b.at);
  }

  #fire(timer: Timer): void {
    if (!this.#timers.has(timer)) return; // stopped or aborted by an earlier one
    if (timer.period) {
      while (timer.at <= this.#now) timer.at += timer.period;
    } else {
      this.#timers.delete(timer);
    }
    timer.fire();
  }

  #add(timer: Timer): void {
    this.#timers.add(timer);
    for (const watcher of [...this.#watchers]) watcher();
  }
}

/** Lets pending promise callbacks run (a macrotask turn, no wait). */
function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
