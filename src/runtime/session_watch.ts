/** How long changes to one session are gathered before they are reported (atomic writes and
 * appends come as bursts of file events). */
const SETTLE_MS = 100;
/** How often a sessions folder that does not exist yet is looked for again. */
const RETRY_MS = 2000;

/**
 * Watches the sessions folder `dir` and calls `onChange(name)` once per burst of changes to a
 * session file `<name>.json` (written, appended, removed; temporary and hidden files ignored).
 * A folder that does not exist yet is looked for every two seconds. Returns the stop function.
 */
export function watchSessions(dir: string, onChange: (name: string) => void): () => void {
  let stopped = false;
  let watcher: Deno.FsWatcher | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const report = (name: string) => {
    clearTimeout(pending.get(name));
    pending.set(
      name,
      setTimeout(() => {
        pending.delete(name);
        if (!stopped) onChange(name);
      }, SETTLE_MS),
    );
  };
  const start = async () => {
    retry = undefined;
    try {
      watcher = Deno.watchFs(dir, { recursive: false });
    } catch {
      if (!stopped) retry = setTimeout(start, RETRY_MS);
      return;
    }
    try {
      for await (const event of watcher) {
        for (const path of event.paths) {
          const name = sessionName(path);
          if (name) report(name);
        }
      }
    } catch {
      // the watcher was closed, or the folder went away
    }
  };
  void start();
  return () => {
    stopped = true;
    clearTimeout(retry);
    for (const timer of pending.values()) clearTimeout(timer);
    pending.clear();
    try {
      watcher?.close();
    } catch {
      // already closed
    }
  };
}

/** The session a changed path belongs to: `<name>.json` directly in the folder, not hidden. */
function sessionName(path: string): string | undefined {
  const file = path.slice(path.lastIndexOf("/") + 1);
  if (file.startsWith(".") || !file.endsWith(".json")) return undefined;
  return file.slice(0, -5) || undefined;
}
