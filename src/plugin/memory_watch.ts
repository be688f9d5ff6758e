/**
 * Out-of-memory containment for sandboxed plugins. Deno 2.9 cannot cap a Web Worker's heap (a
 * Worker that exhausts it aborts the whole process), so while a plugin's Worker loads or runs a
 * call, svc samples the process's resident memory every 50 ms; growth past the limit since the
 * work started stops that Worker before V8 runs out.
 */

/** Resident-memory growth (bytes) during one load or call that stops the plugin. */
export const MEMORY_LIMIT = 256 * 1024 * 1024;
const INTERVAL_MS = 50;

interface Watcher {
  baseline: number;
  limit: number;
  exceeded(): void;
}

const watchers = new Set<Watcher>();
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * Watches resident memory until the returned release is called; `exceeded` runs once when it
 * grows by more than `limit` bytes meanwhile. Growth by any thread counts, so two plugins busy
 * at once are both judged by the sum.
 */
export function watchMemory(exceeded: () => void, limit = MEMORY_LIMIT): () => void {
  const watcher: Watcher = { baseline: Deno.memoryUsage().rss, limit, exceeded };
  watchers.add(watcher);
  if (timer === undefined) {
    const interval = setInterval(sample, INTERVAL_MS);
    Deno.unrefTimer(interval);
    timer = interval;
  }
  return () => release(watcher);
}

function sample(): void {
  const rss = Deno.memoryUsage().rss;
  for (const watcher of [...watchers]) {
    if (rss - watcher.baseline <= watcher.limit) continue;
    release(watcher);
    watcher.exceeded();
  }
}

function release(watcher: Watcher): void {
  watchers.delete(watcher);
  if (watchers.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}
