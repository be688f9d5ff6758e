/**
 * The text reads and writes of the file tools through a front-end's backend (`ToolContext.files`,
 * an ACP editor's buffers) instead of the disk. The policy has judged the call before; a write
 * still stays inside the worktree unless the call was approved for a path outside it, and the
 * turn's checkpoint records the file first, as a write to disk does.
 */
import { isInside } from "../util/canonical_path.ts";
import { outside } from "../util/outside_root_error.ts";
import { dirname } from "../util/posix_path.ts";
import type { FileAccess, ToolContext } from "./types.ts";

type WriteContext = Pick<ToolContext, "worktree" | "signal" | "outsideApproved" | "beforeWrite">;

/** Writes `content` to `target` (symbolic links already followed) through `write`. */
export async function writeThrough(
  write: NonNullable<FileAccess["writeText"]>,
  target: string,
  options: { content: string; ctx: WriteContext },
): Promise<void> {
  const { content, ctx } = options;
  if (!ctx.outsideApproved && !isInside(ctx.worktree, target)) {
    throw outside(dirname(target), ctx.worktree);
  }
  await ctx.beforeWrite?.(target);
  ctx.signal.throwIfAborted();
  await write(target, content, ctx.signal);
}

/** The text of `path` through `read`, or null when the file does not exist on disk either. */
export async function readThrough(
  read: NonNullable<FileAccess["readText"]>,
  path: string,
  { signal }: { signal: AbortSignal },
): Promise<string | null> {
  try {
    return await read(path, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    // An editor answers a missing file with an error of its own: the disk says whether it exists.
    if (!(await exists(path))) return null;
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
