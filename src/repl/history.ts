/**
 * The input history, kept across sessions in `~/.config/svc/repl_history`: one JSON string per
 * line (entries may span lines), mode 0600 (prompts can hold secrets), the newest HISTORY_MAX
 * kept. Appends add one line; the file is rewritten only when it grew to twice the cap.
 */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";

export const HISTORY_MAX = 1000;

/** The history file's path. */
export function historyPath(dir = globalConfigDir()): string {
  return join(dir, "repl_history");
}

/** Loaded entries (oldest first) and a function that appends one. */
export interface History {
  entries: string[];
  add(entry: string): Promise<void>;
}

/** Loads the history; a missing or unreadable file is an empty history that is still written. */
export async function loadHistory(path: string): Promise<History> {
  let lines: string[] = [];
  try {
    lines = (await Deno.readTextFile(path)).split("\n").filter(Boolean);
  } catch {
    // No history yet (or unreadable): start empty.
  }
  const entries: string[] = [];
  for (const line of lines) {
    try {
      const value = JSON.parse(line);
      if (typeof value === "string") entries.push(value);
    } catch {
      // A torn last line: skipped.
    }
  }
  const kept = entries.slice(-HISTORY_MAX);
  if (lines.length > 2 * HISTORY_MAX) await rewrite(path, kept).catch(() => {});
  return {
    entries: kept,
    async add(entry: string) {
      if (!entry.trim()) return;
      try {
        await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
        await Deno.writeTextFile(path, `${JSON.stringify(entry)}\n`, { append: true, mode: 0o600 });
      } catch {
        // History is a convenience: a full disk must not break the REPL.
      }
    },
  };
}

async function rewrite(path: string, entries: string[]): Promise<void> {
  const tmp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeTextFile(tmp, entries.map((e) => JSON.stringify(e)).join("\n") + "\n", {
    mode: 0o600,
  });
  await Deno.rename(tmp, path);
}
