/**
 * Turn checkpoints (`svc undo`): what the files a turn changed held before its first change, kept
 * beside the sessions, never among them: `.svc/checkpoints/<session>/<id>.json`, one file per turn
 * that changed something, so `.svc/sessions/` keeps one `<name>.json` per session. Ids sort by
 * time, so the newest turn comes last. A checkpoint is read as untrusted input: `undo.ts` checks
 * every path again before it writes.
 */
import { dirname, join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { writeFileAtomic } from "../util/atomic.ts";

/** A file's content as recorded: bytes (base64 and permission bits), absent, or not kept. */
export type FileState =
  | { kind: "file"; base64: string; mode: number }
  | { kind: "absent" }
  | { kind: "not_undoable"; reason: string };

/** What a turn left at a path: the SHA-256 of a regular file's bytes, no file, or something else. */
export type AfterState = { sha256: string } | { absent: true } | { other: string };

/** One file a turn changed. */
export interface CheckpointFile {
  /** Relative to the worktree, `/`-separated. */
  path: string;
  /** The tool whose write recorded it, or `git snapshot` for a shell change. */
  by: string;
  before: FileState;
  after: AfterState;
}

/** A shell command (a `bash` category tool) the turn ran. */
export interface ShellRun {
  tool: string;
  command: string;
}

/** One turn's checkpoint, as stored. */
export interface Checkpoint {
  version: 1;
  id: string;
  session: string;
  /** When the turn started. */
  at: string;
  /** The start of the turn's prompt. */
  prompt: string;
  files: CheckpointFile[];
  shell: ShellRun[];
  /** The git snapshot of tracked files taken before the first shell command, or why none was. */
  git?: { snapshot: string } | { none: string };
  /** Set once `svc undo` restored the turn. */
  undone_at?: string;
}

/** A file larger than this is recorded as not undoable. */
export const CHECKPOINT_FILE_MAX_BYTES = 2 << 20;
/** Past this many recorded bytes in one turn, further files are recorded as not undoable. */
export const CHECKPOINT_TURN_MAX_BYTES = 32 << 20;

/** `<worktree>/.svc/checkpoints`. */
export function checkpointsRoot(worktree: string): string {
  return join(localDir(worktree), "checkpoints");
}

/** The checkpoint folder of one session. */
export function checkpointDir(worktree: string, session: string): string {
  return join(checkpointsRoot(worktree), session);
}

/** A new checkpoint id: the time (sortable) and a random tail. */
export function checkpointId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "").replace("Z", "");
  return `${stamp}_${crypto.randomUUID().slice(0, 6)}`;
}

const ID = /^\d{8}T\d{9}_[0-9a-f]{6}$/;

/**
 * Writes a checkpoint; the folder must lie inside the worktree's `.svc` (a planted link to another
 * folder is refused).
 */
export async function saveCheckpoint(worktree: string, checkpoint: Checkpoint): Promise<string> {
  const dir = checkpointDir(worktree, checkpoint.session);
  const svc = canonicalPath(worktree, localDir(worktree));
  if (!isInside(svc, canonicalPath(worktree, dir))) {
    throw new Error(`${dir} leads outside ${localDir(worktree)}; no checkpoint is written there`);
  }
  const path = join(dir, `${checkpoint.id}.json`);
  await writeFileAtomic(path, JSON.stringify(checkpoint), {
    parents: true,
    mode: 0o600,
    confineTo: dirname(svc),
  });
  return path;
}

/** A stored checkpoint and its path, or why it was skipped. */
export type LoadedCheckpoint =
  | { ok: true; path: string; checkpoint: Checkpoint }
  | { ok: false; path: string; problem: string };

/** Biggest checkpoint file read. */
const MAX_CHECKPOINT_FILE = 64 << 20;

/** A session's checkpoints, oldest first; a file that does not have the shape is reported. */
export async function listCheckpoints(
  worktree: string,
  session: string,
): Promise<LoadedCheckpoint[]> {
  const dir = checkpointDir(worktree, session);
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".json") && ID.test(entry.name.slice(0, -5))) {
        names.push(entry.name);
      }
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const loaded: LoadedCheckpoint[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    try {
      const info = await Deno.lstat(path);
      if (!info.isFile || info.size > MAX_CHECKPOINT_FILE) throw new Error("not a small file");
      const checkpoint = JSON.parse(await Deno.readTextFile(path));
      const problem = shapeProblem(checkpoint, session);
      loaded.push(problem ? { ok: false, path, problem } : { ok: true, path, checkpoint });
    } catch (err) {
      loaded.push({ ok: false, path, problem: (err as Error).message });
    }
  }
  return loaded;
}

/** Why a parsed checkpoint does not have the stored shape, or undefined. */
function shapeProblem(value: unknown, session: string): string | undefined {
  const c = value as Partial<Checkpoint> | null;
  if (!c || typeof c !== "object" || c.version !== 1) return "not a version 1 checkpoint";
  if (c.session !== session) return `it names another session (${String(c.session)})`;
  if (!Array.isArray(c.files) || !Array.isArray(c.shell)) return "files or shell is not a list";
  for (const file of c.files) {
    if (!file || typeof file.path !== "string" || typeof file.before !== "object") {
      return "a file entry without path or before";
    }
  }
  return undefined;
}

/** Marks a stored checkpoint undone (rewritten in place, inside the worktree only). */
export async function markUndone(
  worktree: string,
  stored: { path: string; checkpoint: Checkpoint },
): Promise<void> {
  const updated = { ...stored.checkpoint, undone_at: new Date().toISOString() };
  await writeFileAtomic(stored.path, JSON.stringify(updated), {
    mode: 0o600,
    confineTo: worktree,
  });
}

/**
 * Removes a session's checkpoint folder (`svc sessions rm`). Nothing outside `.svc` is touched:
 * when `.svc/checkpoints` leads outside `.svc` nothing is removed (`refused`); a link at the
 * session's place is removed as a link, never followed; links inside the folder are removed as
 * links (a recursive remove does not follow them); anything but a folder or a link is left alone.
 */
export async function removeCheckpoints(
  worktree: string,
  session: string,
): Promise<"removed" | "none" | { refused: string }> {
  const dir = checkpointDir(worktree, session);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return "none";
    }
    throw err;
  }
  const svc = canonicalPath(worktree, localDir(worktree));
  const parent = canonicalPath(worktree, checkpointsRoot(worktree));
  if (!isInside(svc, parent) || parent === svc) {
    return { refused: `${checkpointsRoot(worktree)} leads outside ${localDir(worktree)}` };
  }
  if (info.isSymlink) await Deno.remove(dir);
  else if (info.isDirectory) await Deno.remove(dir, { recursive: true });
  else return { refused: `${dir} is not a folder` };
  return "removed";
}
