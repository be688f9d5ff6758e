/**
 * Records one turn's checkpoint while it runs: a file's content before the turn's first write to
 * it (the confined writer calls `beforeWrite`), the shell commands it ran (`beforeShell`, with a
 * git snapshot of tracked files before the first one), and at the end what the turn left. Nothing
 * is written for a turn that changed nothing. Recording never fails a tool: a file it cannot read
 * is recorded as not undoable.
 */
import { relative } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import {
  type AfterState,
  type Checkpoint,
  CHECKPOINT_FILE_MAX_BYTES,
  CHECKPOINT_TURN_MAX_BYTES,
  type CheckpointFile,
  checkpointId,
  type FileState,
  saveCheckpoint,
  type ShellRun,
} from "./checkpoint.ts";
import { changesSince, gitPlaceOf, takeSnapshot } from "./checkpoint_git.ts";

/** Size caps of a recorder (tests lower them). */
export interface CheckpointLimits {
  fileBytes: number;
  turnBytes: number;
}

/** One turn's recorder; `save` stores what it recorded. */
export class TurnCheckpoint {
  readonly #id = checkpointId();
  readonly #at = new Date().toISOString();
  readonly #files = new Map<string, { by: string; before: Promise<FileState> }>();
  /** Paths recorded before the git snapshot: their own record is the older one. */
  #beforeSnapshot = new Set<string>();
  readonly #shell: ShellRun[] = [];
  #git?: Promise<{ snapshot: string } | { none: string }>;
  #bytes = 0;
  readonly #limits: CheckpointLimits;

  /** The canonical worktree. */
  readonly worktree: string;

  constructor(
    worktree: string,
    readonly prompt: string,
    limits: Partial<CheckpointLimits> = {},
  ) {
    this.worktree = canonicalPath(worktree, ".");
    this.#limits = {
      fileBytes: limits.fileBytes ?? CHECKPOINT_FILE_MAX_BYTES,
      turnBytes: limits.turnBytes ?? CHECKPOINT_TURN_MAX_BYTES,
    };
  }

  /** Records `path` (absolute) before a write by `tool`, once per turn. */
  beforeWrite(path: string, tool: string): Promise<void> {
    let rel: string;
    try {
      const real = canonicalPath(this.worktree, path);
      rel = isInside(this.worktree, real) ? relative(this.worktree, real) : "";
      if (!rel) rel = `../${path}`;
    } catch {
      return Promise.resolve();
    }
    if (this.#files.has(rel)) return this.#files.get(rel)!.before.then(() => {});
    const before = rel.startsWith("../")
      ? Promise.resolve<FileState>({ kind: "not_undoable", reason: "outside the worktree" })
      : this.#read(path);
    this.#files.set(rel, { by: tool, before });
    if (!this.#git) this.#beforeSnapshot.add(rel);
    return before.then(() => {});
  }

  /** Records a shell command; the first one takes the git snapshot. Never throws. */
  async beforeShell(tool: string, args: Record<string, unknown>): Promise<void> {
    const command = typeof args.command === "string" ? args.command : JSON.stringify(args);
    this.#shell.push({
      tool,
      command: command.length > 200 ? `${command.slice(0, 197)}...` : command,
    });
    if (!this.#git) {
      const place = gitPlaceOf(this.worktree);
      this.#git = "none" in place ? Promise.resolve(place) : takeSnapshot(place).catch((err) => ({
        none: `git snapshot failed: ${(err as Error).message}`,
      }));
    }
    await this.#git;
  }

  /** Whether the turn changed anything through svc's tools. */
  get empty(): boolean {
    return this.#files.size === 0 && this.#shell.length === 0;
  }

  /** Stores the checkpoint for `session` (what the turn left included); null when empty. */
  async save(session: string): Promise<string | null> {
    if (this.empty) return null;
    const files: CheckpointFile[] = [];
    for (const [path, entry] of this.#files) {
      const before = await entry.before;
      files.push({ path, by: entry.by, before, after: await afterState(this.worktree, path) });
    }
    const git = await this.#git;
    if (git && "snapshot" in git) await this.#addShellChanges(files, git.snapshot);
    const checkpoint: Checkpoint = {
      version: 1,
      id: this.#id,
      session,
      at: this.#at,
      prompt: this.prompt.slice(0, 120),
      files,
      shell: this.#shell,
      ...(git ? { git } : {}),
    };
    return await saveCheckpoint(this.worktree, checkpoint);
  }

  /** The tracked files shell commands changed (unless a tool's record is older). */
  async #addShellChanges(files: CheckpointFile[], snapshot: string): Promise<void> {
    const place = gitPlaceOf(this.worktree);
    if ("none" in place) return;
    const changes = await changesSince(place, snapshot, { maxBytes: this.#limits.fileBytes });
    if ("none" in changes) return;
    for (const change of changes) {
      if (this.#beforeSnapshot.has(change.path)) continue;
      const before: FileState = change.before === null
        ? { kind: "absent" }
        : change.before === "too_large" || !this.#take(change.before.length)
        ? { kind: "not_undoable", reason: "larger than the checkpoint cap" }
        : { kind: "file", base64: change.before.toBase64(), mode: 0o644 };
      const known = files.findIndex((file) => file.path === change.path);
      const after = await afterState(this.worktree, change.path);
      const entry = { path: change.path, by: "git snapshot", before, after };
      if (known >= 0) files[known] = entry;
      else files.push(entry);
    }
  }

  /** Counts `bytes` against the turn's cap; false when they do not fit. */
  #take(bytes: number): boolean {
    if (bytes > this.#limits.fileBytes || this.#bytes + bytes > this.#limits.turnBytes) {
      return false;
    }
    this.#bytes += bytes;
    return true;
  }

  async #read(path: string): Promise<FileState> {
    try {
      const info = await Deno.lstat(path);
      if (!info.isFile) return { kind: "not_undoable", reason: "not a regular file" };
      if (!this.#take(info.size)) {
        return {
          kind: "not_undoable",
          reason: `${info.size} bytes, larger than the checkpoint cap (${this.#limits.fileBytes} ` +
            `a file, ${this.#limits.turnBytes} a turn)`,
        };
      }
      const bytes = await Deno.readFile(path);
      return {
        kind: "file",
        // Native base64: node:buffer loads Deno's Node layer at start (docs/performance.md).
        base64: bytes.toBase64(),
        mode: (info.mode ?? 0o644) & 0o7777,
      };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return { kind: "absent" };
      return { kind: "not_undoable", reason: `unreadable: ${(err as Error).message}` };
    }
  }
}

/** What is at `rel` now: a regular file's hash, nothing, or something else. */
export async function afterState(worktree: string, rel: string): Promise<AfterState> {
  if (rel.startsWith("../")) return { other: "outside the worktree" };
  const path = `${worktree}/${rel}`;
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) return { other: info.isSymlink ? "a symbolic link" : "not a regular file" };
    return { sha256: await sha256(await Deno.readFile(path)) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { absent: true };
    return { other: `unreadable: ${(err as Error).message}` };
  }
}

/** Lowercase hex SHA-256 of bytes. */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
