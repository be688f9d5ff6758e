import { resolve } from "../util/posix_path.ts";

/**
 * Canonical worktree: `--path`, else the directory svc was launched from. An Error says why it
 * cannot be used: it does not exist, or svc may not read it (Deno refuses paths under /dev to
 * the installed command's permissions, whatever the file modes say).
 */
export function resolveWorktree(path?: string): string {
  const base = path ?? Deno.cwd();
  try {
    return Deno.realPathSync(resolve(base));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(`Worktree ${base} does not exist`);
    const why = err instanceof Deno.errors.NotCapable
      ? "svc is not allowed to read there (Deno keeps /dev from the installed command's " +
        "permissions); use a worktree on a regular file system"
      : (err as Error).message;
    throw new Error(`Worktree ${base} cannot be used: ${why}`);
  }
}
