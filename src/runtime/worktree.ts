import { resolve } from "../util/posix_path.ts";

/** Canonical worktree: `--path`, else the directory svc was launched from. */
export function resolveWorktree(path?: string): string {
  const base = path ?? Deno.cwd();
  try {
    return Deno.realPathSync(resolve(base));
  } catch {
    throw new Error(`Worktree ${base} does not exist`);
  }
}
