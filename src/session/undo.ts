/**
 * `svc undo` and `/undo`: restores the files of a session's last turns from their checkpoints,
 * newest turn first. A checkpoint is untrusted input: every path must be a plain relative path
 * inside the worktree (never in `.svc` or `.git`), its folder must resolve inside it, and a
 * symbolic link or anything but a regular file at the path is left alone. A file whose content
 * differs from what the turn left is overwritten only when `force` is set or `confirm` agrees;
 * writes go through the confined writer, so nothing outside the worktree is written.
 */
import { dirname } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { writeFileConfined } from "../tool/confined_write.ts";
import {
  type AfterState,
  type Checkpoint,
  type CheckpointFile,
  listCheckpoints,
  markUndone,
  type ShellRun,
} from "./checkpoint.ts";
import { afterState, sha256 } from "./checkpoint_record.ts";
import type { SessionLog } from "./log.ts";

/** How `undoTurns` treats files changed since their turn. */
export interface UndoOptions {
  /** Turns to undo, newest first; default 1. */
  turns?: number;
  /** Overwrite files changed since their turn without asking. */
  force?: boolean;
  /** Asked before overwriting a file changed since its turn; without it such a file is refused. */
  confirm?: (question: string) => Promise<boolean>;
}

/** What happened to one file. */
export interface UndoFile {
  path: string;
  action: "restored" | "removed" | "unchanged" | "refused" | "not_undoable";
  why?: string;
}

/** One turn undone (or partly: `complete` false, and older turns are left alone). */
export interface UndoneTurn {
  id: string;
  at: string;
  prompt: string;
  files: UndoFile[];
  /** Shell commands of the turn; `shellNote` says whether their changes were restored. */
  shell: ShellRun[];
  shellNote?: string;
  complete: boolean;
}

/** The outcome of an undo. */
export interface UndoReport {
  session: string;
  turns: UndoneTurn[];
  /** Checkpoint files that do not have the stored shape (left alone). */
  skipped: { path: string; problem: string }[];
}

/**
 * Undoes the newest `options.turns` not yet undone turns of `session`, stops at the first turn a
 * file of which was refused, and records the undo in the session (a `command` entry).
 */
export async function undoTurns(
  worktree: string,
  session: SessionLog,
  options: UndoOptions = {},
): Promise<UndoReport> {
  const root = canonicalPath(worktree, ".");
  const stored = await listCheckpoints(root, session.name);
  const report: UndoReport = { session: session.name, turns: [], skipped: [] };
  for (const entry of stored) if (!entry.ok) report.skipped.push(entry);
  const pending = stored.flatMap((entry) => entry.ok && !entry.checkpoint.undone_at ? [entry] : [])
    .reverse().slice(0, Math.max(1, options.turns ?? 1));
  for (const entry of pending) {
    const turn = await undoOne(root, entry.checkpoint, options);
    report.turns.push(turn);
    if (!turn.complete) break;
    await markUndone(root, entry);
  }
  if (report.turns.length) {
    await session.appendMessage({
      role: "command",
      content: `undo: ${report.turns.map(turnLine).join("; ")}`,
      timestamp: new Date().toISOString(),
    });
    await session.sync();
  }
  return report;
}

/** One line per undone turn, as the session records it. */
export function turnLine(turn: UndoneTurn): string {
  const by = (action: UndoFile["action"]) =>
    turn.files.filter((f) => f.action === action).map((f) => f.path);
  const parts = [
    ["restored", by("restored")],
    ["removed", by("removed")],
    ["refused", by("refused")],
    ["not undoable", by("not_undoable")],
  ].flatMap(([label, paths]) => paths.length ? [`${label} ${(paths as string[]).join(", ")}`] : []);
  const state = turn.complete ? "" : " (incomplete)";
  return `turn ${turn.id}${state}: ${parts.join(", ") || "no file to restore"}`;
}

async function undoOne(
  root: string,
  checkpoint: Checkpoint,
  options: UndoOptions,
): Promise<UndoneTurn> {
  const files: UndoFile[] = [];
  for (const file of [...checkpoint.files].reverse()) {
    files.push(
      await undoFile(root, file, options).catch((err) => ({
        path: String(file.path),
        action: "refused" as const,
        why: (err as Error).message,
      })),
    );
  }
  const git = checkpoint.git;
  const shellNote = checkpoint.shell.length === 0
    ? undefined
    : git && "snapshot" in git
    ? `tracked files were restored from the git snapshot ${git.snapshot.slice(0, 12)}; ` +
      "untracked files the commands made are not undone"
    : `not undoable: ${git && "none" in git ? git.none : "no git snapshot"}`;
  return {
    id: checkpoint.id,
    at: checkpoint.at,
    prompt: checkpoint.prompt,
    files,
    shell: checkpoint.shell,
    ...(shellNote ? { shellNote } : {}),
    complete: files.every((file) => file.action !== "refused"),
  };
}

/** Why `path` is no plain relative path inside the worktree (outside `.svc` and `.git`). */
export function unsafePath(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "" || path.includes("\0") || path.startsWith("/")) {
    return "not a relative path";
  }
  const names = path.split("/");
  if (names.some((name) => name === "" || name === "." || name === ".." || name.includes("\\"))) {
    return "not a plain path inside the worktree";
  }
  if (names[0] === ".svc" || names[0] === ".git") return `inside ${names[0]}`;
  return undefined;
}

async function undoFile(
  root: string,
  file: CheckpointFile,
  options: UndoOptions,
): Promise<UndoFile> {
  const path = String(file.path);
  const refuse = (why: string): UndoFile => ({ path, action: "refused", why });
  const before = file.before;
  if (before?.kind === "not_undoable") {
    return { path, action: "not_undoable", why: String(before.reason) };
  }
  const unsafe = unsafePath(file.path);
  if (unsafe) return refuse(`${unsafe}; left alone`);
  const abs = `${root}/${path}`;
  if (!isInside(root, canonicalPath(root, dirname(abs)))) {
    return refuse("its folder leads outside the worktree; left alone");
  }
  if (before?.kind !== "file" && before?.kind !== "absent") return refuse("unknown record");
  const now = await afterState(root, path);
  if ("other" in now) return refuse(`it is now ${now.other}; left alone`);
  const bytes = before.kind === "file" ? decodeBase64(before.base64) : null;
  if (bytes === undefined) return refuse("its recorded content is not base64; left alone");
  if (await sameAs(now, bytes)) return { path, action: "unchanged" };
  if (!sameState(now, file.after) && !options.force) {
    const question = `${path} changed since the turn; overwrite it with its content before it?`;
    if (!(await options.confirm?.(question))) {
      return refuse("changed since the turn; use --force to overwrite it");
    }
  }
  if (bytes) {
    const mode = before.kind === "file" ? Number(before.mode) & 0o777 : 0o644;
    await writeFileConfined(abs, bytes, { confineTo: root, parents: true, mode: mode || 0o644 });
    return { path, action: "restored" };
  }
  // Removed only when still a regular file whose folder is inside the worktree.
  if (!isInside(root, canonicalPath(root, dirname(abs))) || !(await Deno.lstat(abs)).isFile) {
    return refuse("it changed while undoing; left alone");
  }
  await Deno.remove(abs);
  return { path, action: "removed" };
}

/**
 * A record's base64 content, undefined when it is none. Native: node:buffer would load Deno's
 * Node layer, and its decoder skips what is not base64 where this one refuses the record.
 */
function decodeBase64(value: unknown): Uint8Array | undefined {
  try {
    return Uint8Array.fromBase64(String(value));
  } catch {
    return undefined;
  }
}

/** Whether the state now is the recorded content (`null`: no file). */
async function sameAs(now: AfterState, bytes: Uint8Array | null): Promise<boolean> {
  if ("absent" in now) return bytes === null;
  return bytes !== null && "sha256" in now && now.sha256 === await sha256(bytes);
}

function sameState(now: AfterState, after: AfterState | undefined): boolean {
  if (!after || typeof after !== "object") return false;
  if ("absent" in now) return "absent" in after;
  return "sha256" in now && "sha256" in after && now.sha256 === after.sha256;
}
