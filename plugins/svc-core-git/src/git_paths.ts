/**
 * The paths among the git tool's arguments, for the policy (paths outside the worktree ask) and
 * for the no-index guard: `git diff` compares two files on disk, bypassing the repository, when
 * it runs outside a repository or when one of exactly two paths lies outside it.
 */
import { isAbsolute, relative, resolve, sep } from "../../../src/plugin/api.ts";
import type { GitRepo } from "./git_repo.ts";
import { runGit } from "./git_run.ts";

/**
 * The arguments git may read as paths: everything after `--`, every other non-option (a
 * revision or a path, which git decides), the path of `--relative=` and the file of `-L`.
 */
export function gitPathArgs(subcommand: string, args: readonly string[]): string[] {
  if (subcommand === "branch") return [];
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      paths.push(...args.slice(i + 1));
      break;
    }
    if (arg === "-n") i++;
    else if (arg.startsWith("--relative=")) paths.push(arg.slice("--relative=".length));
    else if (arg.startsWith("-L")) paths.push(arg.slice(arg.lastIndexOf(":") + 1));
    else if (!arg.startsWith("-")) paths.push(arg);
  }
  return paths;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Why `git diff` with these arguments would leave the repository (no-index), or null. Any path
 * argument outside the repository is refused, not only the pair git would compare.
 */
export async function noIndexRefusal(
  args: readonly string[],
  repo: GitRepo,
  signal?: AbortSignal,
): Promise<string | null> {
  const top = await runGit(["rev-parse", "--show-toplevel"], repo, signal);
  if (top.code !== 0 || top.timedOut || top.cancelled || !top.stdout.trim()) {
    return "git diff needs a git repository: outside one it compares any two files " +
      "(no-index), which is refused";
  }
  const root = top.stdout.replace(/\n$/, "");
  for (const path of gitPathArgs("diff", args)) {
    if (!inside(root, resolve(repo.cwd, path))) {
      return `git diff compares only paths inside the repository: ${path} is outside it ` +
        "(comparing files outside git, no-index, is refused)";
    }
  }
  return null;
}
