/**
 * The git side of turn checkpoints: before a turn's first shell command, a snapshot of the tracked
 * files (`git stash create`: a commit of the index and the work tree, made without touching either
 * or the stash list; HEAD when nothing is modified); after the turn, the tracked files that differ
 * from it and their snapshot contents. git runs hardened (src/tool/git_hardened.ts), and only in a
 * worktree that is the top of its repository (a `.git` folder in it).
 */
import { join } from "../util/posix_path.ts";
import { gitBlob, type GitPlace, runGit } from "../tool/git_hardened.ts";

/** The repository whose top is the worktree, or why shell changes are not captured. */
export function gitPlaceOf(worktree: string): GitPlace | { none: string } {
  try {
    if (Deno.lstatSync(join(worktree, ".git")).isDirectory) {
      return { cwd: worktree, gitDir: join(worktree, ".git"), workTree: worktree };
    }
  } catch {
    // no .git
  }
  return { none: "the worktree is not the top of a git repository" };
}

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** The identity of the snapshot commit (git wants one; it never reaches a branch). */
const IDENTITY = ["-c", "user.name=svc", "-c", "user.email=svc@localhost"];

/** Snapshots the tracked files of `place`: the commit, or why there is none. */
export async function takeSnapshot(
  place: GitPlace,
): Promise<{ snapshot: string } | { none: string }> {
  const stash = await runGit([...IDENTITY, "stash", "create", "svc checkpoint"], place);
  if (stash.code !== 0) {
    return { none: `git stash create failed: ${stash.stderr.trim().split("\n")[0]}` };
  }
  let commit = stash.stdout.trim();
  if (!commit) {
    const head = await runGit(["rev-parse", "--verify", "-q", "HEAD"], place);
    if (head.code !== 0) return { none: "the repository has no commit yet" };
    commit = head.stdout.trim();
  }
  return COMMIT.test(commit) ? { snapshot: commit } : { none: "git gave no snapshot commit" };
}

/** A tracked file that differs from the snapshot: its content there, or null (added since). */
export interface SnapshotChange {
  path: string;
  before: Uint8Array | null | "too_large";
}

/** The tracked files that differ between `snapshot` and the work tree now. */
export async function changesSince(
  place: GitPlace,
  snapshot: string,
  options: { maxBytes: number },
): Promise<SnapshotChange[] | { none: string }> {
  const diff = await runGit(["diff", "--name-status", "-z", "--no-renames", snapshot, "--"], place);
  if (diff.code !== 0) return { none: `git diff failed: ${diff.stderr.trim().split("\n")[0]}` };
  const fields = diff.stdout.split("\0");
  const changes: SnapshotChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i].trim();
    const path = fields[i + 1];
    if (!/^[ADMT]$/.test(status) || path === "") continue;
    if (status === "A") {
      changes.push({ path, before: null });
      continue;
    }
    const blob = await gitBlob(`${snapshot}:${path}`, place, options);
    changes.push({ path, before: blob ?? "too_large" });
  }
  return changes;
}
