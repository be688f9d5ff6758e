/**
 * A sandboxed plugin may always read its own folder, and Deno checks a path as written: a
 * symbolic link inside the folder would let it read wherever the link points (a global plugin's
 * `keys -> ../../providers.json` would reach svc's API keys). Such a folder is refused.
 */
import { join, relative } from "node:path";
import { canonicalPath, isInside } from "../util/paths.ts";

/** Most entries looked at in one plugin folder. */
export const MAX_PLUGIN_ENTRIES = 20_000;

/**
 * Why the plugin folder `dir` cannot be sandboxed (a symbolic link leading outside it, or too
 * many entries to check), or null when every link stays inside.
 */
export async function folderProblem(dir: string): Promise<string | null> {
  const root = canonicalPath(dir, ".");
  let seen = 0;
  const pending = [root];
  while (pending.length) {
    const folder = pending.pop()!;
    for await (const entry of Deno.readDir(folder)) {
      if (++seen > MAX_PLUGIN_ENTRIES) {
        return `the plugin folder has more than ${MAX_PLUGIN_ENTRIES} entries`;
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory) pending.push(path);
      if (!entry.isSymlink) continue;
      let target: string;
      try {
        target = canonicalPath(root, path);
      } catch {
        return `${relative(root, path)} is a symbolic link svc cannot resolve`;
      }
      if (!isInside(root, target)) {
        return `${relative(root, path)} is a symbolic link to ${target}, outside the plugin folder`;
      }
    }
  }
  return null;
}
