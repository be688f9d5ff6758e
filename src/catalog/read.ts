/**
 * Reading catalog files safely: regular files only, capped (a FIFO or /dev/zero cannot hang svc),
 * and in an untrusted worktree only files that really lie inside it.
 */
import { readTextCapped, UnreadableFileError } from "../util/fs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";

/** `types.json` and `teams.json` are a few KiB; a larger one is refused unread. */
export const CATALOG_MAX_BYTES = 1 << 20;

/**
 * Why `path` may not be read from an untrusted worktree `root`: it leads outside the worktree
 * through a symbolic link (a cloned repository could otherwise point `.svc/skills/notes.md` at
 * `~/.ssh/id_rsa` and have it put into a sub-agent's prompt). Undefined when it lies inside.
 */
export function leavesWorktree(root: string, path: string): string | undefined {
  const real = canonicalPath(root, path);
  if (isInside(root, real)) return undefined;
  return `${path} leads outside the worktree (to ${real}); svc reads a worktree's agent types, ` +
    "teams and skills through such a link only when the worktree is trusted (svc trust)";
}

/**
 * True when nothing is at `path`, not even a dangling link (`lstat` follows the links before the
 * last name, so a link on the way to something that exists is not missing). Checked before the
 * canonical path, whose search through the missing parts costs a failed call per level.
 */
export function missing(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return false;
  } catch (err) {
    return err instanceof Deno.errors.NotFound;
  }
}

/**
 * A file's text, or why it cannot be used (a sentence naming the file). A missing file is
 * `{}`: an absent layer is not a problem.
 */
export async function readCatalogText(
  path: string,
  maxBytes: number,
  confineTo?: string,
): Promise<{ text?: string; problem?: string }> {
  try {
    if (missing(path)) return {};
    if (confineTo) {
      const outside = leavesWorktree(confineTo, path);
      if (outside) return { problem: outside };
    }
    return { text: (await readTextCapped(path, maxBytes)).text };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    if (err instanceof UnreadableFileError) {
      return { problem: `${path} is ${err.message}; skipped` };
    }
    return { problem: `cannot read ${path}: ${(err as Error).message}; skipped` };
  }
}

/**
 * A catalog file (`types.json`, `teams.json`) as its JSON object keyed by entry name, or the
 * reason it is skipped. `example` shows the expected shape in the message for a wrong shape.
 */
export async function readCatalogObject(
  path: string,
  example: string,
  confineTo?: string,
): Promise<{ object?: Record<string, unknown>; problem?: string }> {
  const { text, problem } = await readCatalogText(path, CATALOG_MAX_BYTES, confineTo);
  if (text === undefined) return problem ? { problem } : {};
  if (!text.trim()) return { object: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `${path} is not valid JSON (${(err as Error).message}); skipped` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return {
      problem: `${path} must hold a JSON object keyed by name, like ${example}; skipped`,
    };
  }
  return { object: value as Record<string, unknown> };
}
