import { isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Canonical absolute form of `path` (relative paths resolve against `base`): symlinks are
 * resolved through the deepest existing ancestor, so a path that does not exist yet (a file about
 * to be written, a dangling link's target) is judged by where it would really land.
 */
export function canonicalPath(base: string, path: string): string {
  if (path.includes("\0")) throw new Error("path contains a NUL byte");
  const absolute = resolve(base, path);
  const tail: string[] = [];
  let current = absolute;
  for (let hops = 0; hops < 64; hops++) {
    try {
      const real = Deno.realPathSync(current);
      return tail.length ? join(real, ...tail.reverse()) : real;
    } catch {
      // A dangling symlink: follow its target instead of trusting the link's own location.
      try {
        const target = Deno.readLinkSync(current);
        current = resolve(current, "..", target);
        continue;
      } catch {
        // not a link: walk up
      }
      const parent = resolve(current, "..");
      if (parent === current) return absolute;
      tail.push(current.slice(parent.length).replace(/^[\\/]/, ""));
      current = parent;
    }
  }
  throw new Error(`too many symbolic links resolving ${path}`);
}

/** Segment-wise containment: `/w/proj` contains `/w/proj/a` but not `/w/proj_evil`. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
