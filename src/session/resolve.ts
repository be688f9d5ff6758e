/**
 * Finding a session of a worktree from what a person types: its full name or a unique prefix of
 * it (`svc run --resume`, `/resume`, `svc sessions show`), and the most recently active one
 * (`--continue`). Reads the folder listing and file stamps only, never a session file, and loads
 * nothing but two util modules, so a light command pays next to nothing for it.
 */
import { join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { continuable, folderStamp, recordedLatest, writeRecord } from "./latest.ts";

/** A folder unchanged this long is settled: a scan of it may be recorded for the next one. */
const SETTLED_MS = 1000;

/** A session ref resolved to a name, or why not with the closest names (at most 5). */
export type SessionRefResult =
  | { ok: true; name: string }
  | { ok: false; message: string; suggestions: string[] };

/** Most close matches an unresolved ref lists. */
const MAX_SUGGESTIONS = 5;

/**
 * Resolves `ref` among the worktree's sessions (`.svc/sessions/*.json`): an exact name first
 * (case-sensitive), then a prefix that only one name starts with. An ambiguous prefix lists the
 * names it matches, newest first; an unknown ref lists the closest names (containing it, then by
 * edit distance and shared prefix).
 */
export function resolveSessionRef(
  ref: string,
  options: { worktree: string },
): Promise<SessionRefResult> {
  // The folder is read synchronously (faster); the promise keeps the signature open to change.
  return Promise.resolve(resolveAmong(ref, sessionNames(options.worktree)));
}

function resolveAmong(ref: string, names: string[]): SessionRefResult {
  if (ref === "") {
    return { ok: false, message: "empty session ref", suggestions: newestFirst(names) };
  }
  if (names.includes(ref)) return { ok: true, name: ref };
  const matches = names.filter((name) => name.startsWith(ref));
  if (matches.length === 1) return { ok: true, name: matches[0] };
  if (matches.length > 1) {
    const shown = newestFirst(matches);
    const more = matches.length > shown.length ? ` (${shown.length} newest shown)` : "";
    return {
      ok: false,
      message: `session prefix "${ref}" matches ${matches.length} sessions${more}: ` +
        `${shown.join(", ")}; type more of the name`,
      suggestions: shown,
    };
  }
  const suggestions = closeMatches(ref, names);
  const where = names.length === 0 ? "; this worktree has no saved sessions" : "";
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : "";
  return { ok: false, message: `no session "${ref}"${where}${hint}`, suggestions };
}

/**
 * The worktree's most recently active session (the newest file write), or undefined when it has
 * none. Sub-agent (`sub_`) and job run (`job_`) sessions are left out: svc writes them on its
 * own, they are not sessions a person continues; `resolveSessionRef` still reaches them.
 */
export function latestSession(options: { worktree: string }): Promise<string | undefined> {
  const dir = sessionsDir(options.worktree);
  const recorded = recordedLatest(dir);
  if (recorded !== null) return Promise.resolve(recorded);
  // No record that vouches for the folder: scan, and record the answer when the folder was
  // unchanged for a while before and during the scan (a write in the same clock tick would not
  // change its time).
  const stamp = folderStamp(dir);
  const latest = recentNow({ worktree: options.worktree, limit: 1 })[0]?.name;
  if (
    latest !== undefined && stamp !== null && Date.now() - stamp > SETTLED_MS &&
    folderStamp(dir) === stamp
  ) {
    writeRecord(dir, { name: latest, stamp });
  }
  return Promise.resolve(latest);
}

/**
 * The worktree's sessions by last activity (file write), newest first, at most `limit`; without
 * sub-agent and job run sessions unless `all`. What `--continue` and the `/resume` picker list.
 */
export function recentSessions(
  options: { worktree: string; limit?: number; all?: boolean },
): Promise<{ name: string; active: Date }[]> {
  return Promise.resolve(recentNow(options));
}

function recentNow(
  options: { worktree: string; limit?: number; all?: boolean },
): { name: string; active: Date }[] {
  const dir = sessionsDir(options.worktree);
  const found: { name: string; active: Date }[] = [];
  for (const name of sessionNames(options.worktree)) {
    if (!options.all && !continuable(name)) continue;
    try {
      // Synchronous stats: one call each, several times faster than awaiting each one.
      found.push({ name, active: Deno.statSync(join(dir, `${name}.json`)).mtime ?? new Date(0) });
    } catch {
      continue; // removed since the listing
    }
  }
  found.sort((a, b) =>
    b.active.getTime() - a.active.getTime() || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)
  );
  return found.slice(0, options.limit ?? found.length);
}

function sessionsDir(worktree: string): string {
  return join(localDir(worktree), "sessions");
}

/** The saved session names of a worktree, unsorted; none when the folder is missing. */
function sessionNames(worktree: string): string[] {
  const names: string[] = [];
  try {
    // Synchronous: one call for the whole folder, where the async iterator pays one per entry.
    for (const entry of Deno.readDirSync(sessionsDir(worktree))) {
      if (entry.isFile && entry.name.endsWith(".json") && !entry.name.startsWith(".")) {
        names.push(entry.name.slice(0, -5));
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names;
}

/** Names newest first (they start with a timestamp), at most MAX_SUGGESTIONS. */
function newestFirst(names: string[]): string[] {
  return [...names].sort().reverse().slice(0, MAX_SUGGESTIONS);
}

/**
 * The names closest to an unknown ref: those containing it first, then those within a few edits
 * of it (compared with the whole name and with its start), then those sharing a long prefix.
 */
export function closeMatches(ref: string, names: string[]): string[] {
  const probe = ref.slice(0, 128);
  const limit = Math.max(2, Math.floor(probe.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    if (name.includes(probe)) {
      scored.push({ name, score: -1 });
      continue;
    }
    const distance = Math.min(
      editDistance(probe, name),
      editDistance(probe, name.slice(0, probe.length)),
    );
    const shared = sharedPrefix(probe, name);
    if (distance <= limit) scored.push({ name, score: distance });
    else if (shared >= Math.max(4, probe.length - limit)) scored.push({ name, score: limit + 1 });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  return scored.slice(0, MAX_SUGGESTIONS).map((entry) => entry.name);
}

function sharedPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let row = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length];
}
