/**
 * The worktree's newest continuable session without a stat of every session file (`--continue`,
 * docs/sessions.md): every svc write of a session records, under the sessions'
 * write lock, the newest continuable session and the folder's modification time just after the
 * write, in `<sessions folder>.latest` (`.svc/sessions.latest`). Every svc write, removal or rename
 * of a session file changes the folder (a temp file renamed into place), so a record whose time
 * still matches the folder vouches that nothing was written since; any other record is ignored and
 * the folder is scanned. A leaf of the session layer: util only.
 */

/** Where the record of the sessions in `dir` is kept: beside the folder, never among the sessions. */
export function latestRecordPath(dir: string): string {
  return `${dir}.latest`;
}

/** Whether `--continue` may pick `name`: sub-agent (`sub_`) and job (`job_`) sessions it skips. */
export function continuable(name: string): boolean {
  return !name.startsWith("sub_") && !name.startsWith("job_");
}

/** The folder's modification time in ms, or null when it cannot be read. */
export function folderStamp(dir: string): number | null {
  try {
    return Deno.statSync(dir).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}

/** The record's session while it still vouches for the folder (and its file is there), else null. */
export function recordedLatest(dir: string): string | null {
  let record: { name?: unknown; stamp?: unknown };
  try {
    record = JSON.parse(Deno.readTextFileSync(latestRecordPath(dir)));
  } catch {
    return null; // none yet, or torn by a writer right now: the caller scans
  }
  const { name, stamp } = record ?? {};
  if (typeof name !== "string" || typeof stamp !== "number") return null;
  if (!continuable(name) || name.startsWith(".") || /[/\\\0]/.test(name)) return null;
  if (stamp !== folderStamp(dir)) return null;
  try {
    return Deno.statSync(`${dir}/${name}.json`).isFile ? name : null;
  } catch {
    return null;
  }
}

/**
 * After svc wrote session `name` (under the sessions' write lock): records it, or for a session
 * `--continue` skips the one `before` named (`recordedLatest` taken under the same lock before
 * the write), with the folder's time now. Best effort: a record that cannot be written only
 * costs the next `--continue` a scan.
 */
export function noteWrite(dir: string, written: { name: string; before: string | null }): void {
  const latest = continuable(written.name) ? written.name : written.before;
  if (latest === null) return;
  writeRecord(dir, { name: latest, stamp: folderStamp(dir) });
}

/** Writes the record (not atomic: a torn one parses as nothing and is ignored). */
export function writeRecord(dir: string, record: { name: string; stamp: number | null }): void {
  const { name, stamp } = record;
  if (stamp === null) return;
  try {
    Deno.writeTextFileSync(latestRecordPath(dir), JSON.stringify({ name, stamp }));
  } catch {
    // a read-only worktree: --continue scans
  }
}
