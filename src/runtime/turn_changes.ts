/**
 * What a turn changed in the worktree, from its undo checkpoint (src/session/checkpoint.ts): each
 * file's content before the turn against what it holds now, as lines added and removed and as a
 * unified diff (the `diff` package). The REPL prints the summary after a turn and `/diff` prints
 * the diff.
 */
import { Buffer } from "node:buffer";
import type { SessionLog } from "../session/log.ts";
import { type Checkpoint, listCheckpoints } from "../session/checkpoint.ts";
import { join } from "../util/posix_path.ts";

/** One file a turn changed. */
export interface FileChange {
  path: string;
  added: number;
  removed: number;
  /** created, deleted or changed; `unknown` when its content before was not recorded or is binary. */
  kind: "created" | "deleted" | "changed" | "unknown";
  /** The unified diff (headers and hunks); empty for `unknown`. */
  patch: string;
}

/** The files of one turn's checkpoint, and when the turn started. */
export interface TurnChanges {
  at: string;
  prompt: string;
  files: FileChange[];
}

/** Biggest file compared (bytes): larger ones count as `unknown`. */
const MAX_COMPARED = 1 << 20;

/**
 * The changes of the session's newest checkpoint that is not undone, if the turn started at or
 * after `since` (an ISO time); null when there is none.
 */
export async function turnChanges(
  worktree: string,
  options: { session: SessionLog; since?: string },
): Promise<TurnChanges | null> {
  const loaded = await listCheckpoints(worktree, options.session.name);
  const last = loaded.filter((c) => c.ok && !c.checkpoint.undone_at).at(-1);
  if (!last?.ok) return null;
  const checkpoint: Checkpoint = last.checkpoint;
  if (options.since && checkpoint.at < options.since) return null;
  const { structuredPatch } = await import("diff");
  const files: FileChange[] = [];
  for (const file of checkpoint.files) {
    // A checkpoint is untrusted input: only paths inside the worktree are read.
    if (file.path.startsWith("/") || file.path.split("/").includes("..")) continue;
    const absentBefore = file.before.kind === "absent";
    const before = file.before.kind === "file"
      ? decode(Buffer.from(file.before.base64, "base64"))
      : absentBefore
      ? ""
      : null;
    const now = await readNow(join(worktree, file.path));
    if (absentBefore && now === undefined) continue; // created and removed again
    if (before === null || now === null) {
      files.push({ path: file.path, added: 0, removed: 0, kind: "unknown", patch: "" });
      continue;
    }
    if (now === before) continue;
    const patch = structuredPatch(file.path, file.path, before, now ?? "", undefined, undefined, {
      context: 3,
    });
    let added = 0, removed = 0;
    const lines = [`--- ${file.path}`, `+++ ${file.path}`];
    for (const hunk of patch.hunks) {
      lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
        lines.push(line.replace(/\r$/, ""));
      }
    }
    const kind = absentBefore ? "created" : now === undefined ? "deleted" : "changed";
    files.push({ path: file.path, added, removed, kind, patch: lines.join("\n") });
  }
  return { at: checkpoint.at, prompt: checkpoint.prompt, files };
}

/** The file's text now; undefined when absent, null when binary, too large or not a file. */
async function readNow(path: string): Promise<string | null | undefined> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size > MAX_COMPARED) return null;
    return decode(await Deno.readFile(path));
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? undefined : null;
  }
}

/** UTF-8 text, or null for binary content (a NUL byte, or not UTF-8). */
function decode(bytes: Uint8Array): string | null {
  if (bytes.length > MAX_COMPARED || bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The one-line summary: `2 files changed: src/a.ts +3 -1, b.txt (created) +10`. */
export function changesSummary(changes: TurnChanges): string {
  const parts = changes.files.map((f) => {
    const kind = f.kind === "changed" ? "" : ` (${f.kind})`;
    const counts = f.kind === "unknown" ? "" : ` +${f.added} -${f.removed}`;
    return `${f.path}${kind}${counts}`;
  });
  const n = changes.files.length;
  return `${n} file${n === 1 ? "" : "s"} changed: ${parts.join(", ")} · /diff shows it`;
}
