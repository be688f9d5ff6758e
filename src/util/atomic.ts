import { dirname, join } from "./posix_path.ts";
import { outside } from "./outside_root_error.ts";
import { canonicalPath, isInside } from "./canonical_path.ts";
import type { AtomicWriteOptions } from "./atomic_options.ts";

export { OutsideRootError } from "./outside_root_error.ts";

export type { AtomicWriteOptions } from "./atomic_options.ts";

let descriptorPaths: boolean | undefined;

/**
 * Whether a confined write can go through /proc/self/fd: Linux, and a process Deno lets use it,
 * which takes every permission (`-A`). svc's entry points run with a narrower set (see
 * docs/security.md); a confined write then checks its folder by path just before writing, as on
 * other systems.
 */
export function descriptorPathsAllowed(): boolean {
  if (Deno.build.os !== "linux") return false;
  if (descriptorPaths === undefined) {
    try {
      Deno.readLinkSync("/proc/self/fd/0");
      descriptorPaths = true;
    } catch (err) {
      descriptorPaths = !(err instanceof Deno.errors.NotCapable);
    }
  }
  return descriptorPaths;
}

/** The name of writeFileAtomic's temp files: a dot, 8 hex digits, `.tmp`. */
export const TEMP_FILE_NAME = /^\.[0-9a-f]{8}\.tmp$/;

/**
 * A temp file older than this is a leftover of a killed save, never one in progress: a save of
 * svc's small state files takes milliseconds, and one that took longer would only fail its rename.
 */
export const STALE_TEMP_MS = 10_000;

/**
 * Replaces `path` crash-safely: temp file in the same folder, fsync, rename, fsync the folder.
 * A killed process leaves either the old or the new file, never a torn one. With
 * `syncDir: false` the rename is atomic but only durable after a later `syncDir(folder)`: a power
 * loss before that leaves the previous complete version. `mode` (default 0o644, narrowed by the
 * umask) is for a new file; with `keepMode` a file already at `path` keeps its permission bits
 * exactly, umask aside. `confineTo` keeps the write inside a folder (see AtomicWriteOptions).
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  if (options.confineTo !== undefined && descriptorPathsAllowed()) {
    // node:fs costs about 40 ms to load in Deno: only a process that can use it loads it.
    const { writeConfined } = await import("./confined.ts");
    return await writeConfined(path, bytes, { root: options.confineTo, ...options });
  }
  const dir = dirname(path);
  if (options.confineTo !== undefined) {
    const root = await Deno.realPath(options.confineTo);
    if (!isInside(root, canonicalPath(root, dir))) throw outside(dir, options.confineTo);
  }
  if (options.parents) await Deno.mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${crypto.randomUUID().slice(0, 8)}.tmp`);
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

/**
 * Removes the temp files a killed `writeFileAtomic` left in `dir` (by their name pattern, only
 * when older than STALE_TEMP_MS): in `~/.config/svc` they can hold a copy of the API keys.
 * Returns the names removed; a missing folder or an entry that cannot be removed is skipped.
 */
export async function removeStaleTemps(dir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  try {
    // Sync: every start lists ~/.config/svc, a handful of files, and an async listing costs a
    // thread-pool round trip.
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isFile || !TEMP_FILE_NAME.test(entry.name)) continue;
      const path = join(dir, entry.name);
      try {
        const { mtime } = await Deno.lstat(path);
        if (!mtime || now - mtime.getTime() < STALE_TEMP_MS) continue;
        await Deno.remove(path);
        removed.push(entry.name);
      } catch {
        // Renamed or removed by its own save meanwhile, or not ours to remove.
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return removed.sort();
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
