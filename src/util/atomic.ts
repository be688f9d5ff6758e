import { dirname, join } from "node:path";

/**
 * Replaces `path` crash-safely: temp file in the same folder, fsync, rename, fsync the folder.
 * A killed process leaves either the old or the new file, never a torn one. With
 * `syncDir: false` the rename is atomic but only durable after a later `syncDir(folder)`: a power
 * loss before that leaves the previous complete version.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; syncDir?: boolean } = {},
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${crypto.randomUUID().slice(0, 8)}.tmp`);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: options.mode ?? 0o644 });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } catch (err) {
    file.close();
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  file.close();
  try {
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  if (options.syncDir !== false) await syncDir(dir);
}

/** fsyncs a folder so renames inside it survive a power loss. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await Deno.open(dir, { read: true });
    try {
      await handle.sync();
    } finally {
      handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
}

/**
 * Runs `fn` holding an exclusive advisory lock on `<path>.lock`, so a REPL, a jobs daemon and
 * servers sharing a worktree do not interleave read-modify-write cycles of one file.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const lock = await Deno.open(`${path}.lock`, { read: true, write: true, create: true });
  try {
    await lock.lock(true);
    return await fn();
  } finally {
    lock.close();
  }
}
