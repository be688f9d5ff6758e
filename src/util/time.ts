/** Time helpers: waits, with or without an abort signal, and the one clock daemons take. */
import { startTimer } from "./timer.ts";

/** Waits `ms` milliseconds or until `signal` aborts; resolves false when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const finish = (completed: boolean) => {
      cancel();
      signal?.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = () => finish(false);
    const cancel = startTimer(ms, () => finish(true));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Waits `ms` milliseconds: the short fixed pause of a polling loop (`sleep` without a signal). */
export async function delay(ms: number): Promise<void> {
  await sleep(ms);
}

/**
 * The time a daemon reads and waits on (the jobs daemon and runner, the fleet supervisor, the
 * listener watchdog): `realClock` by default, a fake in tests (tests/_support/fake_clock.ts).
 * Every duration and reading is in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch: timestamps and schedules. */
  now(): number;
  /** Milliseconds on a monotonic clock: intervals that a wall-clock step must not stretch. */
  monotonic(): number;
  /**
   * Waits `ms` or until `signal` aborts; resolves false when aborted. `what` names the wait, so
   * tests can tell where the code under test waits.
   */
  sleep(ms: number, signal?: AbortSignal, what?: string): Promise<boolean>;
  /** Calls `fn` every `ms` until the returned stop; never keeps the process alive. */
  every(ms: number, fn: () => void): () => void;
}

/** Real time: `Date.now()`, `performance.now()`, timers. */
export const realClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, signal),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    Deno.unrefTimer(timer);
    return () => clearInterval(timer);
  },
};
