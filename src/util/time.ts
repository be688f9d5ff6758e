/** Time helpers: waits, with or without an abort signal. */

/** Waits `seconds` or until `signal` aborts; resolves false when aborted. */
export function sleep(seconds: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const finish = (completed: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(true), Math.max(0, seconds * 1000));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Waits `ms` milliseconds: the short fixed pause of a polling loop. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
