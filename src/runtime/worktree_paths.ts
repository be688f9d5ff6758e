/**
 * Path completion inside the worktree (the REPL's `@path` mentions): the entries of one folder
 * whose names start with what was typed, folders with a trailing `/`. Files git ignores
 * (`.gitignore`, `.git/info/exclude`, the user's excludes) are left out in a git worktree, with
 * git run hardened (src/tool/git_hardened.ts); `.git`, `node_modules` and `.svc` always are.
 */
import { gitPlaceOf } from "../session/checkpoint_git.ts";
import { runGit } from "../tool/git_hardened.ts";
import { join } from "../util/posix_path.ts";

/** Folders never offered. */
const SKIPPED = new Set([".git", ".hg", ".svn", "node_modules", ".svc"]);
/** Entries of one folder looked at, at most. */
const MAX_ENTRIES = 2000;

/**
 * The worktree-relative paths completing `typed` (a path relative to the worktree); none for a
 * path that leaves it (absolute, or with a `..` segment).
 */
export async function completePath(worktree: string, typed: string): Promise<string[]> {
  if (typed.startsWith("/") || typed.split("/").includes("..")) return [];
  const slash = typed.lastIndexOf("/");
  const folder = typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(worktree, folder || "."))) {
      if (!entry.name.startsWith(start) || SKIPPED.has(entry.name)) continue;
      if (start === "" && entry.name.startsWith(".")) continue;
      const dir = entry.isDirectory ||
        (entry.isSymlink && await Deno.stat(join(worktree, folder, entry.name)).then(
          (s) => s.isDirectory,
          () => false,
        ));
      found.push(`${folder}${entry.name}${dir ? "/" : ""}`);
      if (found.length >= MAX_ENTRIES) break;
    }
  } catch {
    return [];
  }
  const ignored = await gitIgnored(worktree, found);
  return found.filter((path) => !ignored.has(path.replace(/\/$/, ""))).sort();
}

/** Which of `paths` git ignores; none outside a git worktree or when git fails. */
async function gitIgnored(worktree: string, paths: string[]): Promise<Set<string>> {
  const place = gitPlaceOf(worktree);
  if ("none" in place || !paths.length) return new Set();
  const plain = paths.map((p) => p.replace(/\/$/, ""));
  const result = await runGit(["check-ignore", "--", ...plain], place).catch(() => null);
  if (!result || (result.code !== 0 && result.code !== 1)) return new Set();
  // One path a line (a name git must quote stays offered).
  return new Set(result.stdout.split("\n").filter(Boolean));
}
