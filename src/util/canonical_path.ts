import { dirname, isAbsolute, join, relative, resolve, sep } from "./posix_path.ts";

/** `/` for an absolute path, else nothing. */
function rootOf(path: string): string {
  return isAbsolute(path) ? sep : "";
}

/**
 * Canonical absolute form of `path` (relative paths resolve against `base`): symlinks are
 * resolved through the deepest existing ancestor, so a path that does not exist yet (a file about
 * to be written, a dangling link's target) is judged by where it would really land.
 */
export function canonicalPath(base: string, path: string): string {
  if (path.includes("\0")) throw new Error("path contains a NUL byte");
  // The kernel takes `..` after a symlink from the link's target, not lexically: resolve the parts
  // before each `..` for real first (`up/../x` with `up -> ../..` is two levels up).
  const absolute = isAbsolute(path) ? path : `${base}${sep}${path}`;
  const root = rootOf(absolute);
  const names = absolute.slice(root.length).split(/[\\/]+/);
  if (!names.includes("..")) return canonicalNoDots(resolve(base, path));
  let current = root;
  let pending: string[] = [];
  for (const name of names) {
    if (name === "" || name === ".") continue;
    if (name !== "..") {
      pending.push(name);
      continue;
    }
    if (pending.length) current = canonicalNoDots(join(current, ...pending));
    pending = [];
    current = dirname(current);
  }
  return canonicalNoDots(join(current, ...pending));
}

/**
 * `canonicalPath` of an absolute path without `..` parts: the deepest existing ancestor is found
 * by binary search (existence is monotone along the ancestors), so a deep path costs a few
 * system calls; a dangling link there is followed to its target.
 */
function canonicalNoDots(absolute: string): string {
  let current = absolute;
  for (let hops = 0; hops <= 64; hops++) {
    const root = rootOf(current);
    const names = current.slice(root.length).split(/[\\/]+/).filter(Boolean);
    const prefix = (k: number) => root + names.slice(0, k).join(sep);
    const real = (k: number) => {
      try {
        return Deno.realPathSync(prefix(k));
      } catch {
        return null;
      }
    };
    const whole = real(names.length);
    if (whole !== null) return whole;
    let low = 0, high = names.length; // real(low) holds (or low is 0); real(high) fails
    let found = real(0);
    if (found === null) return current;
    while (high - low > 1) {
      const mid = (low + high) >> 1;
      const at = real(mid);
      if (at === null) high = mid;
      else [low, found] = [mid, at];
    }
    const rest = names.slice(low + 1);
    let target: string;
    try {
      target = Deno.readLinkSync(join(found, names[low]));
    } catch {
      return join(found, names[low], ...rest);
    }
    // A dangling symlink: follow its target instead of trusting the link's own location.
    current = resolve(found, target, ...rest);
  }
  throw new Error(`too many symbolic links resolving ${absolute}`);
}

/** Segment-wise containment: `/w/proj` contains `/w/proj/a` but not `/w/proj_evil`. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
