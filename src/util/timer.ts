/**
 * One-shot timers on Deno's web timers. Deno's global `setTimeout` is Node's (Deno 2.8 and
 * later), and the first call in a process loads Deno's Node timers with the Node error and
 * inspection modules they import: about 8 ms of a one-word `svc run` (docs/performance.md, tenth
 * round). `AbortSignal.timeout` runs on the web timers loaded at start, and Deno keeps the process
 * alive while such a signal has an abort listener, as a pending `setTimeout` does; removing the
 * listener lets the process end. Such a timer cannot be cleared, only left to run out unobserved,
 * so a wait is taken in steps of at most `STEP_MS`: a cancelled timer is gone within a second, and
 * a server that cancels many (a stream watchdog per turn) or a daemon that cancels long waits
 * holds no pile of them. The start path of every command (plugin loading, session writes, the
 * model stream, the output) uses these; tests/util/timer.test.ts pins the behaviour relied on.
 */

/** The longest wait, as for `setTimeout`: about 24.8 days. */
const MAX_MS = 2 ** 31 - 1;

/** The longest single web timer a wait uses; a longer wait takes several in a row. */
export const STEP_MS = 1000;

/**
 * Calls `fire` once after `ms` milliseconds (a negative, NaN or infinite `ms` fires at the next
 * turn of the event loop, a longer one than `MAX_MS` after `MAX_MS`); returns `cancel`, after
 * which `fire` is never called and the timer no longer keeps the process alive.
 */
export function startTimer(ms: number, fire: () => void): () => void {
  const wait = Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_MS) : 0;
  const deadline = performance.now() + wait;
  let signal: AbortSignal;
  const step = () => {
    const left = deadline - performance.now();
    if (left >= 1) arm(left);
    else fire();
  };
  const arm = (left: number) => {
    signal = AbortSignal.timeout(Math.min(Math.floor(left), STEP_MS));
    signal.addEventListener("abort", step, { once: true });
  };
  arm(wait);
  return () => signal.removeEventListener("abort", step);
}
