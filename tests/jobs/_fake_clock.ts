/**
 * Fake time for the jobs daemon and runner: `now()` moves only when a test advances it, and each
 * wait (`sleep`) is pending until the time reaches its end. A test waits for the code under test
 * to reach a named wait (`sleeping`), which tells when it is idle and until when, then advances.
 */
import type { Clock, Wait } from "../../src/jobs/clock.ts";

interface Sleeper {
  until: number;
  what: Wait | undefined;
  wake(completed: boolean): void;
}

/** How long (real time) `sleeping` waits for the code under test before it fails the test. */
const STUCK_MS = 15_000;

export class FakeClock implements Clock {
  #now: number;
  #sleepers = new Set<Sleeper>();
  #watchers = new Set<() => void>();

  constructor(start: Date) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  sleep(seconds: number, signal?: AbortSignal, what?: Wait): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    const until = this.#now + Math.max(0, seconds * 1000);
    if (until <= this.#now) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = () => sleeper.wake(false);
      const sleeper: Sleeper = {
        until,
        what,
        wake: (completed) => {
          this.#sleepers.delete(sleeper);
          signal?.removeEventListener("abort", onAbort);
          resolve(completed);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.add(sleeper);
      for (const watcher of [...this.#watchers]) watcher();
    });
  }

  /** The pending waits, earliest first. */
  pending(): Array<{ what: Wait | undefined; until: Date }> {
    return [...this.#sleepers].sort((a, b) => a.until - b.until)
      .map((s) => ({ what: s.what, until: new Date(s.until) }));
  }

  /**
   * Resolves with the end of the earliest pending wait named `what` as soon as there is one (the
   * code under test got there); fails when none comes within STUCK_MS of real time.
   */
  sleeping(what: Wait): Promise<Date> {
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
        const waits = this.pending().map((s) => `${s.what} until ${s.until.toISOString()}`);
        reject(new Error(`nothing waits on "${what}"; pending: ${waits.join(", ") || "none"}`));
      }, STUCK_MS);
      this.#watchers.add(check);
      check();
    });
  }

  /** Moves the time forward to `time`, ending every wait due by then. */
  advanceTo(time: Date): void {
    if (time.getTime() < this.#now) throw new Error("the fake clock does not go back");
    this.#now = time.getTime();
    for (const sleeper of [...this.#sleepers]) {
      if (sleeper.until <= this.#now) sleeper.wake(true);
    }
  }

  /** Waits for the wait named `what`, moves the time to its end and returns that time. */
  async next(what: Wait): Promise<Date> {
    const until = await this.sleeping(what);
    this.advanceTo(until);
    return until;
  }
}
