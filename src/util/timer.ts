/**
 * One-shot timers on Deno's web timers. Deno's global `setTimeout` is Node's (Deno 2.8 and
 * later), and the first call in a process loads Deno's Node timers with the Node error and
 * inspection modules they import: about 8 ms of a one-word `svc run` (docs/performance.md, tenth
 * round). `AbortSignal.timeout` runs on the web timers loaded at start, and Deno keeps the process
 * alive while such a signal has an abort listener, as a pending `setTimeout` does; removing the
 * listener lets the process end (the timer itself runs out unobserved). The start path of every
 * command (plugin loading, session writes, the model stream, the output) uses these;
 * tests/util/timer.test.ts pins the behaviour this relies on.
 */

/** The longest wait, as for `setTimeout`: about 24.8 days. */
const MAX_MS = 2 ** 31 - 1;

/**
 * Calls `fire` once after `ms` milliseconds (rounded down; a negative, NaN or infinite `ms` fires
 * at the next turn of the event loop, a longer one than `MAX_MS` after `MAX_MS`); returns
 * `cancel`, after which `fire` is never called and the timer no longer keeps the process alive.
 */
export function startTimer(ms: number, fire: () => void): () => void {
  const wait = Number.isFinite(ms) ? Math.min(Math.max(Math.floor(ms), 0), MAX_MS) : 0;
  const signal = AbortSignal.timeout(wait);
  const onAbort = () => fire();
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
