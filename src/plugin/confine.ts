/**
 * A sandboxed plugin may always read its own folder, and Deno checks a path as written: a
 * symbolic link inside the folder would let it read wherever the link points (a global plugin's
 * `keys -> ../../providers.json` would reach svc's API keys). Such a folder is refused. The same
 * holds for the folders a plugin is granted (the worktree): a link there leading into svc's own
 * folder (`cfg -> ~/.config/svc`) keeps the plugin from starting (`linkIntoConfig`).
 */
import { join, relative } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";

/** Most entries looked at in one plugin folder. */
export const MAX_PLUGIN_ENTRIES = 20_000;

/** A plugin folder's entries as looked at: path, size and modification time (or link target). */
export type FolderEntry = [path: string, size: number, mtime: number, link?: string];

/**
 * Walks a plugin folder (`root`, its canonical path): why it cannot be sandboxed (a symbolic link leading outside it, or too
 * many entries to check), or null when every link stays inside; and its entries, sorted, which
 * fingerprint its contents. Synchronous: a plugin folder is small, and while svc loads, its
 * thread is busy importing the bundled plugins, which would delay every step of an asynchronous
 * walk.
 */
export function scanFolder(
  dir: string,
): { root: string; problem: string | null; entries: FolderEntry[] } {
  const root = canonicalPath(dir, ".");
  const entries: FolderEntry[] = [];
  const pending = [root];
  const fail = (problem: string) => ({ root, problem, entries });
  while (pending.length) {
    const folder = pending.pop()!;
    for (const entry of Deno.readDirSync(folder)) {
      if (entries.length >= MAX_PLUGIN_ENTRIES) {
        return fail(`the plugin folder has more than ${MAX_PLUGIN_ENTRIES} entries`);
      }
      const path = join(folder, entry.name);
      const name = relative(root, path);
      if (entry.isDirectory) pending.push(path);
      if (!entry.isSymlink) {
        const info = Deno.lstatSync(path);
        entries.push([name, info.size, info.mtime?.getTime() ?? 0]);
        continue;
      }
      let target: string;
      try {
        target = canonicalPath(root, path);
      } catch {
        return fail(`${name} is a symbolic link svc cannot resolve`);
      }
      if (!isInside(root, target)) {
        return fail(`${name} is a symbolic link to ${target}, outside the plugin folder`);
      }
      entries.push([name, 0, 0, target]);
    }
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { root, problem: null, entries };
}

/** Most entries looked at in a plugin's granted folders, links followed, at each start. */
export const MAX_GRANTED_ENTRIES = 200_000;

/**
 * Why a plugin granted `folders` must not start: a symbolic link in them (or in a folder outside
 * them that one of their links leads to) whose target is inside svc's own folder `configDir` or
 * contains it, unless the target is inside one of `allowed` (paths there granted by name); or
 * more entries than can be checked. Null when no such link is there. Deno checks a path as
 * written (`--deny-read` too), so the link would reach API keys and the trust list. A link made
 * after the start is not seen: a sandboxed plugin cannot make one itself (Deno.symlink needs
 * unscoped read and write), but a program it is granted to run can.
 */
export function linkIntoConfig(
  folders: readonly string[],
  configDir: string,
  allowed: readonly string[] = [],
): string | null {
  const roots = folders.filter((f) => !allowed.some((a) => isInside(a, f)));
  const seen = new Set<string>(roots);
  const pending = [...roots];
  let count = 0;
  while (pending.length) {
    const folder = pending.pop()!;
    let entries: Iterable<Deno.DirEntry>;
    try {
      entries = Deno.readDirSync(folder);
    } catch {
      continue; // unreadable: unreadable through a link as well
    }
    for (const entry of entries) {
      if (++count > MAX_GRANTED_ENTRIES) {
        return `its granted folders (${folders.join(", ")}) have more than ` +
          `${MAX_GRANTED_ENTRIES} entries, too many to check for links into svc's own folder ` +
          `${configDir}; grant narrower folders`;
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory) {
        pending.push(path);
        continue;
      }
      if (!entry.isSymlink) continue;
      let target: string;
      try {
        target = canonicalPath(folder, path);
      } catch {
        continue; // a loop: nothing is read through it
      }
      const reaches = isInside(configDir, target) || isInside(target, configDir);
      if (reaches && !allowed.some((a) => isInside(a, target))) {
        return `${path} is a symbolic link to ${target}, into svc's own folder ${configDir} ` +
          "(API keys, trust list): the plugin could read it through the link; remove the link " +
          "or run svc elsewhere";
      }
      if (seen.has(target) || roots.some((r) => isInside(r, target))) continue;
      try {
        if (!Deno.statSync(target).isDirectory) continue;
      } catch {
        continue;
      }
      seen.add(target);
      pending.push(target);
    }
  }
  return null;
}

/** `scanFolder`'s problem alone. */
export function folderProblem(dir: string): string | null {
  return scanFolder(dir).problem;
}
