import { join } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";

const GLOB_CHARS = /[*?[{]/;

/**
 * Whether any path argument lands outside the worktree once `..`, symlinks (including dangling
 * ones) and absolute paths are resolved. Glob patterns are judged by their literal leading
 * directory. Unparseable paths (NUL bytes) count as outside. Relative paths resolve against `base`
 * (default: the worktree itself).
 */
export function pointsOutside(worktree: string, values: unknown[], base = worktree): boolean {
  for (const value of values) {
    if (typeof value !== "string" || value === "") continue;
    let literal = value;
    const glob = value.search(GLOB_CHARS);
    if (glob >= 0) literal = value.slice(0, glob).replace(/[^/\\]*$/, "") || ".";
    if (literal.startsWith("~")) return true;
    if (resolvesOutside(worktree, literal, base)) return true;
    if (glob >= 0 && /(^|[/\\])\.\.([/\\]|$)/.test(value.slice(glob))) return true;
  }
  return false;
}

/**
 * Whether one literal path (globs and `~` taken as plain characters) lands outside the worktree
 * once resolved from `base`, symlinks included; unresolvable paths count as outside.
 */
export function resolvesOutside(worktree: string, path: string, base = worktree): boolean {
  try {
    return !isInside(worktree, canonicalPath(base, path));
  } catch {
    return true;
  }
}

/** Folders whose files steer svc or git: config, sessions, plugins, hooks. */
const CONTROL_DIRS = [".svc", ".git"];

/**
 * Whether a path argument lands in the worktree's `.svc/` or `.git/` (after symlinks): an edit
 * there could loosen svc's own policy or plant a git hook, so it is never silently allowed.
 */
export function touchesControlFiles(worktree: string, values: unknown[]): boolean {
  for (const value of values) {
    if (typeof value !== "string" || value === "") continue;
    let path: string;
    try {
      path = canonicalPath(worktree, value);
    } catch {
      return true;
    }
    if (CONTROL_DIRS.some((dir) => isInside(join(worktree, dir), path))) return true;
  }
  return false;
}
