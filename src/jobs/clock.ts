/**
 * The time the jobs daemon and runner read and wait on. The real clock by default; tests pass a
 * fake one and drive the daemon's and the runner's state machines on fake time, in-process.
 */
import { sleep } from "../util/time.ts";

/** What the daemon and the runner wait on, named for tests and debugging. */
export type Wait = "daemon" | "backoff" | "timeout" | "stop-check";

export interface Clock {
  now(): Date;
  /** Waits `seconds` or until `signal` aborts; resolves false when aborted. */
  sleep(seconds: number, signal?: AbortSignal, what?: Wait): Promise<boolean>;
}

/** Real time: `Date` and timers. */
export const realClock: Clock = {
  now: () => new Date(),
  sleep: (seconds, signal) => sleep(seconds, signal),
};
