/** Result wording shared by the bundled file tools: error results, paths, filesystem errors. */
import { resolve } from "../util/posix_path.ts";
import type { ToolOutput } from "../tool/types.ts";

/** An error result the model should see and correct. */
export function fail(content: string): ToolOutput {
  return { content, ok: false };
}

/** Resolves `path` against the worktree; a NUL byte yields an error result instead. */
export function resolvePath(worktree: string, path: string): string | ToolOutput {
  if (path.includes("\0")) return fail("Path contains a NUL byte");
  return resolve(worktree, path);
}

/**
 * Turns a filesystem error into a readable error result naming `path`; `action` is the verb of
 * what was attempted ("read", "write", "edit"; default "access").
 */
export function fsError(
  err: unknown,
  path: string,
  options: { action?: string } = {},
): ToolOutput {
  const action = options.action ?? "access";
  if (err instanceof Deno.errors.NotFound) return fail(`Path not found: ${path}`);
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return fail(`Permission denied: ${path}`);
  }
  if (err instanceof Deno.errors.IsADirectory) return fail(`${path} is a directory`);
  if (err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.AlreadyExists) {
    return fail(`Cannot ${action} ${path}: a file is in the way of a parent directory`);
  }
  if (err instanceof Deno.errors.FilesystemLoop) return fail(`Symbolic link loop at ${path}`);
  const message = err instanceof Error ? err.message : String(err);
  return fail(`Cannot ${action} ${path}: ${message}`);
}

/** `1 line`, `2 lines`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
