/** Helpers shared by file_write and file_edit: path resolution, error wording, atomic writes. */
import { basename, dirname, join, resolve } from "node:path";
import type { ToolOutput } from "../../../src/plugin/api.ts";

/** An error result the model should see and correct. */
export function fail(content: string): ToolOutput {
  return { content, ok: false };
}

/** Resolves `path` against the worktree; a NUL byte yields an error result instead. */
export function resolvePath(worktree: string, path: string): string | ToolOutput {
  if (path.includes("\0")) return fail("Path contains a NUL byte");
  return resolve(worktree, path);
}

/** Turns a filesystem error into a readable error result naming the path. */
export function fsError(err: unknown, path: string, doing = "write"): ToolOutput {
  if (err instanceof Deno.errors.NotFound) return fail(`File not found: ${path}`);
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return fail(`Permission denied: ${path}`);
  }
  if (err instanceof Deno.errors.IsADirectory) return fail(`${path} is a directory`);
  if (err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.AlreadyExists) {
    return fail(`Cannot ${doing} ${path}: a file is in the way of a parent directory`);
  }
  if (err instanceof Deno.errors.FilesystemLoop) return fail(`Symbolic link loop at ${path}`);
  const message = err instanceof Error ? err.message : String(err);
  return fail(`Cannot ${doing} ${path}: ${message}`);
}

/**
 * The file a write to `path` really lands in: symbolic links (dangling ones too) are followed,
 * so the link survives the temp-and-rename write and keeps pointing at the updated file.
 */
export async function writeTarget(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!(await Deno.lstat(current)).isSymlink) return current;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return current;
      throw err;
    }
    current = resolve(dirname(current), await Deno.readLink(current));
  }
  throw new Deno.errors.FilesystemLoop(`too many levels of symbolic links: ${path}`);
}

/**
 * Replaces `path` crash-safely: a temp file in the same folder, fsync, rename, fsync of the
 * folder. `mode` (the old file's permission bits) is applied exactly, regardless of umask.
 */
export async function writeAtomic(path: string, data: Uint8Array, mode?: number): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o666 });
    try {
      for (let done = 0; done < data.length;) done += await file.write(data.subarray(done));
      await file.syncData();
    } finally {
      file.close();
    }
    if (mode !== undefined) await Deno.chmod(tmp, mode & 0o7777);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename is atomic regardless
  }
}

/** Line count as editors show it: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/** `1 line`, `2 lines`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
