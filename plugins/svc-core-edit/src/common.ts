/** Helpers shared by file_write and file_edit: symlink targets, atomic writes, line counts. */
import { basename, dirname, join, resolve } from "node:path";

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
