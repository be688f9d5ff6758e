/**
 * Writes that cannot leave a root folder, even when a symbolic link is swapped while they run.
 * Each folder on the way is opened, and the folder actually opened is checked (its descriptor's
 * real path, read from /proc/self/fd/N) before anything is created in it; everything after that
 * goes through the descriptor (`/proc/self/fd/N/name`), so no later swap can redirect it.
 */
import { constants } from "node:fs";
import { type FileHandle, mkdir, open, readlink } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "./posix_path.ts";
import type { AtomicWriteOptions } from "./atomic_options.ts";
import { outside } from "./outside_root_error.ts";
import { regularFileBits } from "./fs.ts";
import { canonicalPath, isInside } from "./canonical_path.ts";

export { OutsideRootError } from "./outside_root_error.ts";

/** A folder opened and checked to lie inside the root; `at(name)` names an entry of it. */
export interface ConfinedDir {
  /** The descriptor, for fsync. */
  handle: FileHandle;
  /** A path of `name` in this very folder, whatever happens to the folder's own path. */
  at(name: string): string;
}

/** The errno name of a node:fs error ("ENOENT"), if any. */
function errorCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}

const DENO_ERRORS: Record<string, new (message: string) => Error> = {
  ENOENT: Deno.errors.NotFound,
  EACCES: Deno.errors.PermissionDenied,
  EPERM: Deno.errors.PermissionDenied,
  ENOTDIR: Deno.errors.NotADirectory,
  EISDIR: Deno.errors.IsADirectory,
  EEXIST: Deno.errors.AlreadyExists,
  ELOOP: Deno.errors.FilesystemLoop,
};

/** A node:fs error as the Deno error class of its errno, so callers can tell them apart. */
export function denoError(err: unknown): unknown {
  const code = errorCode(err);
  const DenoError = code ? DENO_ERRORS[code] : undefined;
  return DenoError ? new DenoError((err as Error).message) : err;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

async function openChecked(path: string, root: string, shown: string): Promise<ConfinedDir> {
  const handle = await open(path, DIR_FLAGS);
  const proc = `/proc/self/fd/${handle.fd}`;
  let real: string;
  try {
    real = await readlink(proc);
  } catch (err) {
    await handle.close();
    throw new Error(
      `cannot check where ${shown} leads: /proc/self/fd is not readable (${
        (err as Error).message
      })`,
    );
  }
  if (!isInside(root, real)) {
    await handle.close();
    throw outside(shown, root);
  }
  return { handle, at: (name) => `${proc}/${name}` };
}

/**
 * Opens folder `dir` for writing inside `root`: symbolic links are followed as a write would
 * follow them, but every folder opened on the way must lie inside `root`. With `create`, missing
 * folders are made one at a time, each inside a checked parent. Linux only (/proc/self/fd).
 * Throws OutsideRootError when the folder is, or turns out to be, outside.
 */
export async function openConfinedDir(
  root: string,
  dir: string,
  options: { create?: boolean } = {},
): Promise<ConfinedDir> {
  const realRoot = await Deno.realPath(root);
  const canonical = canonicalPath(realRoot, dir);
  if (!isInside(realRoot, canonical)) throw outside(dir, root);
  let current = await openChecked(realRoot, realRoot, root);
  let shown = realRoot;
  for (const name of relative(realRoot, canonical).split(sep).filter((part) => part !== "")) {
    shown = join(shown, name);
    const next = current.at(name);
    try {
      let opened: ConfinedDir;
      try {
        opened = await openChecked(next, realRoot, shown);
      } catch (err) {
        if (!options.create || errorCode(err) !== "ENOENT") throw err;
        // mkdir never follows a link in its last component, and the parent was checked.
        await mkdir(next).catch((e) => {
          if (errorCode(e) !== "EEXIST") throw e;
        });
        opened = await openChecked(next, realRoot, shown);
      }
      await current.handle.close();
      current = opened;
    } catch (err) {
      await current.handle.close();
      throw denoError(err);
    }
  }
  return current;
}

/**
 * The confined write on Linux: the folder is opened and checked, and the temp file, its mode and
 * the rename all go through that folder's descriptor, so a swapped link cannot redirect them.
 */
export async function writeConfined(
  path: string,
  bytes: Uint8Array,
  options: AtomicWriteOptions & { root: string },
): Promise<void> {
  const { root } = options;
  const dir = await openConfinedDir(root, dirname(path), { create: options.parents });
  try {
    const name = basename(path);
    const tmp = dir.at(`.${crypto.randomUUID().slice(0, 8)}.tmp`);
    const kept = options.keepMode ? await regularFileBits(dir.at(name)) : undefined;
    const mode = (kept ?? options.mode ?? 0o644) & 0o777;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const file = await open(tmp, flags, mode).catch((err) => Promise.reject(denoError(err)));
    try {
      try {
        let written = 0;
        while (written < bytes.length) {
          written += (await file.write(bytes, written, bytes.length - written)).bytesWritten;
        }
        await file.datasync();
        // On the descriptor: a link put in place of the temp file cannot redirect the chmod.
        if (kept !== undefined) await file.chmod(kept);
      } finally {
        await file.close();
      }
      await Deno.rename(tmp, dir.at(name));
    } catch (err) {
      await Deno.remove(tmp).catch(() => {});
      throw denoError(err);
    }
    if (options.syncDir !== false) await dir.handle.sync().catch(() => {});
  } finally {
    await dir.handle.close();
  }
}
