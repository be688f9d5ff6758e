/**
 * A sandboxed plugin may always read its own folder, and Deno checks a path as written: a
 * symbolic link inside the folder would let it read wherever the link points (a global plugin's
 * `keys -> ../../providers.json` would reach svc's API keys). Such a folder is refused.
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

/** `scanFolder`'s problem alone. */
export function folderProblem(dir: string): string | null {
  return scanFolder(dir).problem;
}
