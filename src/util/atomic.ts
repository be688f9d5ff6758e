import { dirname, join } from "node:path";

/**
 * Replaces `path` crash-safely: temp file in the same folder, fsync, rename, fsync the folder.
 * A killed process leaves either the old or the new file, never a torn one. With
 * `syncDir: false` the rename is atomic but only durable after a later `syncDir(folder)`: a power
 * loss before that leaves the previous complete version. `mode` (default 0o644, narrowed by the
 * umask) is for a new file; with `keepMode` a file already at `path` keeps its permission bits
 * exactly, umask aside.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; keepMode?: boolean; syncDir?: boolean } = {},
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${crypto.randomUUID().slice(0, 8)}.tmp`);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const kept = options.keepMode ? await permissionBits(path) : undefined;
  const mode = (kept ?? options.mode ?? 0o644) & 0o777;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode });
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.syncData();
    } finally {
      file.close();
    }
    // The umask may have narrowed the kept bits (and setuid/setgid/sticky need chmod).
    if (kept !== undefined) await Deno.chmod(tmp, kept);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  if (options.syncDir !== false) await syncDir(dir);
}

/** The permission bits of the file at `path`, or undefined when there is none. */
async function permissionBits(path: string): Promise<number | undefined> {
  try {
    const mode = (await Deno.stat(path)).mode;
    return mode === null ? undefined : mode & 0o7777;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
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
