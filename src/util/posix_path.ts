/**
 * POSIX path functions with the results of `node:path` (tests/util/posix_path.test.ts compares them on
 * thousands of paths), without Deno's Node layer: the first `node:` import of a process loads that
 * layer, about 10-15 ms of every svc start (docs/performance.md). svc's code and its bundled
 * plugins import paths from here; scripts/check_imports.ts keeps `node:path` out of them.
 * Arguments are strings (TypeScript checks it), as `node:path` requires.
 */

/** The path separator. */
export const sep = "/";

/** The names of `path` with `.` and empty names dropped and `..` applied, joined by `/`. */
function resolveNames(path: string, absolute: boolean): string {
  const names: string[] = [];
  for (const name of path.split("/")) {
    if (name === "" || name === ".") continue;
    if (name !== "..") names.push(name);
    else if (names.length > 0 && names[names.length - 1] !== "..") names.pop();
    else if (!absolute) names.push("..");
  }
  return names.join("/");
}

/** Whether `path` starts at the root. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** `path` with `.`, `..` and repeated slashes resolved; a trailing slash is kept. */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  let body = resolveNames(path, absolute);
  if (body === "" && !absolute) body = ".";
  if (body !== "" && path.endsWith("/")) body += "/";
  return absolute ? `/${body}` : body;
}

/** The non-empty arguments joined by `/`, normalized; `.` when there are none. */
export function join(...paths: string[]): string {
  const joined = paths.filter((p) => p !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/**
 * The absolute path the arguments lead to, read right to left until one is absolute, else from
 * the working directory; normalized, without a trailing slash.
 */
export function resolve(...paths: string[]): string {
  let resolved = "";
  let absolute = false;
  for (let i = paths.length - 1; i >= -1 && !absolute; i--) {
    const path = i >= 0 ? paths[i] : Deno.cwd();
    if (path === "") continue;
    resolved = `${path}/${resolved}`;
    absolute = isAbsolute(path);
  }
  const body = resolveNames(resolved, absolute);
  return absolute ? `/${body}` : body || ".";
}

/** The path from `from` to `to` (both resolved first); `""` when they are the same. */
export function relative(from: string, to: string): string {
  const start = resolve(from);
  const end = resolve(to);
  if (start === end) return "";
  const names = (path: string) => path === "/" ? [] : path.slice(1).split("/");
  const a = names(start);
  const b = names(end);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
}

/** Everything before the last name of `path` (trailing slashes ignored); `.` when nothing is. */
export function dirname(path: string): string {
  if (path === "") return ".";
  let i = path.length - 1;
  while (i >= 1 && path[i] === "/") i--;
  while (i >= 1 && path[i] !== "/") i--;
  if (i < 1) return isAbsolute(path) ? "/" : ".";
  if (i === 1 && isAbsolute(path)) return "//";
  return path.slice(0, i);
}

/** Start and end of the last name of `path`, trailing slashes ignored. */
function lastName(path: string): [number, number] {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  const start = path.lastIndexOf("/", end - 1) + 1;
  return [start, end];
}

/** The last name of `path`, trailing slashes ignored. */
export function basename(path: string): string {
  const [start, end] = lastName(path);
  return path.slice(start, end);
}

/** The extension of the last name of `path`, from its last `.`; none for `.name`, `.` and `..`. */
export function extname(path: string): string {
  const [start, end] = lastName(path);
  const name = path.slice(start, end);
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || name === "..") return "";
  return name.slice(dot);
}
