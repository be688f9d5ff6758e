/**
 * The repository the git tools run on, found by svc rather than by git: the nearest `.git` at or
 * above the worktree (on the same filesystem, as git searches). git then runs with that git dir
 * and its folder as work tree, so `core.worktree` in the repository's config cannot point git at
 * `~/.config/svc` or `/`. Until the worktree is trusted, a repository that reads another one is
 * refused: a `.git` file (gitfile) or link leading outside the repository's folder, a `commondir`,
 * an `objects/info/alternates` entry or a link at the top of the git dir leading outside it.
 */
import { dirname, isAbsolute, relative, resolve, sep } from "../../../src/plugin/api.ts";

/** Where git runs: `cwd`, with `--git-dir=gitDir` and `--work-tree=workTree`. */
export interface GitRepo {
  cwd: string;
  gitDir: string;
  workTree: string;
}

/** Resolves symlinks through the deepest existing ancestor, so missing paths are judged too. */
export function realPath(path: string): string {
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return resolve(Deno.realPathSync(current), ...tail.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      tail.push(current.slice(parent.length).replace(/^\//, ""));
      current = parent;
    }
  }
}

/** Whether `path` is `root` or lies inside it (segment-wise, both canonical). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function lstat(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * A small text file of the git dir (gitfile, commondir, alternates), or null when absent. Throws
 * for anything but a regular file: a FIFO would hang the read.
 */
function readSmall(path: string): string | null {
  if (!lstat(path)) return null;
  if (!Deno.statSync(path).isFile) throw new Error(`${path} is not a regular file`);
  using file = Deno.openSync(path);
  const buf = new Uint8Array(64 * 1024);
  const n = file.readSync(buf) ?? 0;
  return new TextDecoder().decode(buf.subarray(0, n));
}

const TRUST_HINT = "; run `svc trust` in the worktree to allow it";

/** Why the git dir reads outside `root`, or null. Never quotes file contents (they may be secret). */
function outsideReads(gitDir: string, root: string): string | null {
  for (const entry of Deno.readDirSync(gitDir)) {
    if (!entry.isSymlink) continue;
    const target = realPath(`${gitDir}/${entry.name}`);
    if (!isInside(root, target)) {
      return `its .git/${entry.name} is a symbolic link to ${target}, outside it, so git would ` +
        "read another repository";
    }
  }
  let common = gitDir;
  const commondir = readSmall(`${gitDir}/commondir`);
  if (commondir !== null) {
    common = realPath(resolve(gitDir, commondir.replace(/\r?\n$/, "")));
    if (!isInside(root, common)) {
      return "its .git/commondir takes the repository's data from outside it, so git would " +
        "read another repository";
    }
  }
  // Every object folder git would use, alternates of alternates included (seen ends cycles).
  const seen = new Set<string>();
  const objectDirs = [`${gitDir}/objects`, `${common}/objects`];
  while (objectDirs.length) {
    const objects = objectDirs.shift()!;
    if (seen.has(objects)) continue;
    seen.add(objects);
    const alternates = readSmall(`${objects}/info/alternates`);
    if (alternates === null) continue;
    for (const line of alternates.split("\n")) {
      if (line.trim() === "" || line.startsWith("#")) continue;
      const path = realPath(resolve(objects, line));
      if (line.startsWith('"') || !isInside(root, path)) {
        return "its objects/info/alternates borrows objects from outside it, so git would read " +
          "another repository";
      }
      objectDirs.push(path);
    }
  }
  return null;
}

/** outsideReads, failing closed when the git dir cannot be read. */
function inspect(gitDir: string, root: string): string | null {
  if (!lstat(gitDir)?.isDirectory) return null; // git itself reports that it is no repository
  try {
    return outsideReads(gitDir, root);
  } catch (err) {
    return `its git directory cannot be checked for reads outside it: ${(err as Error).message}`;
  }
}

/** The gitdir a `.git` file or link at `dotGit` names (canonical), or null when unreadable. */
function pointedGitDir(dotGit: string, info: Deno.FileInfo): string | null {
  if (info.isSymlink) return realPath(dotGit);
  try {
    const match = /^gitdir: (.+?)\r?\n?$/.exec(readSmall(dotGit) ?? "");
    return match ? realPath(resolve(dirname(dotGit), match[1])) : null;
  } catch {
    return null;
  }
}

/**
 * The repository of `worktree` (its canonical path; a `.git` at or above it), or why it is refused.
 * Without any `.git`, git is pointed at `<worktree>/.git` and says itself that there is no
 * repository. `trusted` lifts the refusals, not the fixed git dir and work tree.
 */
export function gitRepo(worktree: string, trusted: boolean): GitRepo | { refused: string } {
  const cwd = realPath(worktree);
  const device = lstat(cwd)?.dev;
  for (let root = cwd;; root = dirname(root)) {
    const dotGit = `${root}/.git`;
    const info = lstat(dotGit);
    if (info) {
      const repo = { cwd, gitDir: dotGit, workTree: root };
      if (trusted) return repo;
      let gitDir = dotGit;
      if (!info.isDirectory) {
        const kind = info.isSymlink ? "a symbolic link" : "a file (gitfile)";
        const target = pointedGitDir(dotGit, info);
        if (target === null || !isInside(root, target)) {
          return {
            refused: target === null
              ? `git refused: ${dotGit} is neither a folder nor a readable gitfile${TRUST_HINT}`
              : `git refused: ${dotGit} is ${kind} naming a git directory at ${target} ` +
                `outside the repository, so git would read another repository${TRUST_HINT}`,
          };
        }
        gitDir = target;
      }
      const why = inspect(gitDir, root);
      if (why) {
        return {
          refused: `git refused for the repository at ${root}: ${why}${TRUST_HINT}`,
        };
      }
      return { ...repo, gitDir };
    }
    const parent = dirname(root);
    if (parent === root || lstat(parent)?.dev !== device) break;
  }
  return { cwd, gitDir: `${cwd}/.git`, workTree: cwd };
}
