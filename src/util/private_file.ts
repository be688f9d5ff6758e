/**
 * The ownership rule for svc's own folder (`~/.config/svc`): config, keys, the trust list and job
 * approvals are read only from files and folders that belong to this user or to root and that no
 * one else can write, the rule ssh applies to its config. Another user who can write there could
 * plant an `mcp.servers` entry that runs as this user, trust a repository, or swap an API key.
 */
import { dirname } from "./posix_path.ts";

/** A file or folder on the way to one svc reads that another user could have written. */
export class UnsafeFileError extends Error {
  override name = "UnsafeFileError";
}

let ownUid: number | null | undefined;

/**
 * This process's user id. `Deno.uid()` needs the `sys` permission, which svc's entry points do not
 * hold (docs/security.md), and /proc/self takes every permission: without them the id is the
 * owner of a temp file created for the purpose. Null where the system has no user ids (Windows)
 * or none can be learnt.
 */
export function currentUid(): number | null {
  if (ownUid !== undefined) return ownUid;
  try {
    ownUid = Deno.uid();
  } catch {
    try {
      const probe = Deno.makeTempFileSync({ prefix: ".svc-uid-" });
      try {
        ownUid = Deno.statSync(probe).uid;
      } finally {
        Deno.removeSync(probe);
      }
    } catch {
      ownUid = null;
    }
  }
  return ownUid;
}

/**
 * Throws an UnsafeFileError, naming the fix, unless `path` (when it exists, and what a symbolic
 * link there leads to) and each folder above it up to HOME (not HOME itself; only its own folder
 * when `path` is outside HOME) belong to this user or to root and cannot be written by group or
 * others. A symbolic link must belong to this user or root too, and so must the folder of the
 * file it leads to. A folder others may write passes only when it belongs to root and has the
 * sticky bit (like /tmp, or the read-only mount point of a Kubernetes secret): no one can then
 * replace a file they do not own, and every file is checked on its own. A missing file or folder
 * passes: svc creates its folder 0700.
 */
export function checkPrivate(path: string): void {
  const uid = currentUid();
  const file = entry(path);
  if (file?.link) {
    // The link itself, then what it leads to and that file's folder, each named as it is.
    judge(path, { path, info: file.link, folder: false }, uid);
    const real = Deno.realPathSync(path);
    judge(path, { path: real, info: file.info, folder: false }, uid);
    judge(path, { path: dirname(real), info: Deno.statSync(dirname(real)), folder: true }, uid);
  } else if (file) judge(path, { path, info: file.info, folder: false }, uid);
  for (const folder of foldersAbove(path)) {
    const found = entry(folder);
    if (found?.link) judge(path, { path: folder, info: found.link, folder: false }, uid);
    if (found) judge(path, { path: folder, info: found.info, folder: true }, uid);
  }
}

/** The folders from `path`'s own up to, not including, HOME (only its own outside HOME). */
function foldersAbove(path: string): string[] {
  const home = (Deno.env.get("HOME") ?? "").replace(/\/+$/, "");
  const folders = [dirname(path)];
  if (!home || !folders[0].startsWith(`${home}/`)) return folders;
  for (let dir = dirname(folders[0]); dir !== home && dir.startsWith(`${home}/`);) {
    folders.push(dir);
    dir = dirname(dir);
  }
  return folders;
}

/** What stands at `path` (followed), and the link itself when it is one; undefined when missing. */
function entry(path: string): { info: Deno.FileInfo; link?: Deno.FileInfo } | undefined {
  try {
    const own = Deno.lstatSync(path);
    if (!own.isSymlink) return { info: own };
    return { info: Deno.statSync(path), link: own };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** Throws when `seen` (on the way to `wanted`) has the wrong owner or can be written by others. */
function judge(
  wanted: string,
  seen: { path: string; info: Deno.FileInfo; folder: boolean },
  uid: number | null,
): void {
  const { path, info } = seen;
  const owner = info.uid;
  if (owner !== null && uid !== null && owner !== uid && owner !== 0) {
    throw new UnsafeFileError(
      `will not read ${wanted}: ${path} belongs to user id ${owner}, not to you (${uid}) ` +
        "or root, so another user may have chosen what svc runs or where it sends your keys. " +
        `Check what it holds; if it is yours, run as root: chown ${info.isSymlink ? "-h " : ""}` +
        `${uid} ${quote(path)}`,
    );
  }
  if (info.isSymlink || info.mode === null) return;
  const mode = info.mode & 0o7777;
  if ((mode & 0o022) === 0) return;
  if (seen.folder && (mode & 0o1000) !== 0 && owner === 0) return;
  const who = (mode & 0o022) === 0o022 ? "group and others" : mode & 0o002 ? "others" : "group";
  throw new UnsafeFileError(
    `will not read ${wanted}: ${path} can be written by ${who} (mode ` +
      `${mode.toString(8).padStart(4, "0")}), so another user could change what svc runs or ` +
      `where it sends your keys. Check what it holds, then run: chmod go-w ${quote(path)}`,
  );
}

/** `path` as a shell word. */
function quote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
