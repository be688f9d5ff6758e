/**
 * The saved sessions of a folder as `svc sessions list` shows them: newest first by the file's
 * last write, with size, turns and messages counted from the file's text without parsing it.
 */
import { join } from "../util/posix_path.ts";

/** One session file: its name, path, size in bytes and last write (ms since the epoch). */
export interface SessionFile {
  name: string;
  path: string;
  size: number;
  mtime: number;
}

/** One row of `svc sessions list`. */
export interface SessionSummary {
  name: string;
  path: string;
  size_bytes: number;
  /** The file's last write (ISO 8601): the session's last activity. */
  updated_at: string;
  /** The document's `created_at`, when its head has one. */
  created_at: string | null;
  /** User messages: the prompts of the session's turns. */
  turns: number;
  messages: number;
}

/**
 * The session files of `dir` (`<name>.json`, not hidden), newest first; none when it is missing.
 * With `stat: false` each is listed unsorted with size and mtime 0, without a stat per file
 * (search stats only the files that match).
 */
export function sessionFiles(dir: string, { stat = true }: { stat?: boolean } = {}): SessionFile[] {
  const files: SessionFile[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".json") || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (!stat) {
      files.push({ name: entry.name.slice(0, -5), path, size: 0, mtime: 0 });
      continue;
    }
    try {
      const info = Deno.statSync(path);
      files.push({ name: entry.name.slice(0, -5), path, size: info.size, mtime: mtimeOf(info) });
    } catch {
      // Removed since the listing.
    }
  }
  return stat ? files.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? 1 : -1)) : files;
}

/** A file's last write in ms, 0 when the platform gives none. */
export function mtimeOf(info: Deno.FileInfo): number {
  return info.mtime?.getTime() ?? 0;
}

// A role key as JSON.stringify writes it. Inside a string value every quote is escaped, so these
// match the message records only.
const ROLE = /"role":\s*"(user|assistant|tool|system|command)"/g;
const CREATED = /"created_at":\s*"([^"\\]{1,64})"/;

/** Largest file whose roles are counted; a bigger one shows its size with turns unknown (-1). */
export const COUNT_MAX_BYTES = 64 << 20;

/** The row of one file: turns and messages counted from its text, no JSON parsed. */
export function summarize(file: SessionFile): SessionSummary {
  let turns = -1;
  let messages = -1;
  let created: string | null = null;
  if (file.size <= COUNT_MAX_BYTES) {
    try {
      const text = new TextDecoder().decode(Deno.readFileSync(file.path));
      turns = 0;
      messages = 0;
      for (const match of text.matchAll(ROLE)) {
        messages++;
        if (match[1] === "user") turns++;
      }
      created = CREATED.exec(text.slice(0, 1024))?.[1] ?? null;
    } catch {
      // Unreadable: shown with unknown counts.
    }
  }
  return {
    name: file.name,
    path: file.path,
    size_bytes: file.size,
    updated_at: new Date(file.mtime).toISOString(),
    created_at: created,
    turns,
    messages,
  };
}
