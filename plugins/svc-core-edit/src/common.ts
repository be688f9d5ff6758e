/** Helpers shared by file_write and file_edit: how and where a write lands, line counts. */
import { dirname, resolve } from "../../../src/plugin/api.ts";
import type { ToolContext } from "../../../src/plugin/api.ts";
import { writeFileConfined } from "../../../src/tool/confined_write.ts";
import { readThrough, writeThrough } from "../../../src/tool/file_access.ts";

/**
 * `writeFileConfined` options: a file keeps its mode, a new one gets 0o666 less the umask, missing
 * folders are created, and the write stays inside the worktree unless the call was approved for a
 * path outside it (a symbolic link swapped after the policy's check cannot move it out where
 * /proc/self/fd or bubblewrap can hold the write: src/tool/confined_write.ts).
 */
export function writeOptions(ctx: ToolContext) {
  return {
    mode: 0o666,
    keepMode: true,
    parents: true,
    confineTo: ctx.outsideApproved ? undefined : ctx.worktree,
    // The turn's checkpoint keeps the file's content before its first change (svc undo).
    before: ctx.beforeWrite,
  };
}

/**
 * Writes a file tool's text to `target`: through the front-end's backend when it gave one (an
 * editor over ACP), else crash-safely to disk with `writeOptions`.
 */
export async function writeText(
  ctx: ToolContext,
  target: string,
  { content }: { content: string },
): Promise<void> {
  if (ctx.files?.writeText) await writeThrough(ctx.files.writeText, target, { content, ctx });
  else await writeFileConfined(target, content, writeOptions(ctx));
}

/** A file's text before a write: the editor's when it reads files (an unsaved buffer), else the disk's. */
export async function currentText(ctx: ToolContext, target: string): Promise<string> {
  if (!ctx.files?.readText) return await Deno.readTextFile(target);
  return await readThrough(ctx.files.readText, target, { signal: ctx.signal }) ?? "";
}

/**
 * The file a write to `path` really lands in: symbolic links (dangling ones too) are followed,
 * so the link survives the temp-and-rename write and keeps pointing at the updated file.
 */
export async function writeTarget(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!(await Deno.lstat(current)).isSymlink) return current;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return current;
      throw err;
    }
    current = resolve(dirname(current), await Deno.readLink(current));
  }
  throw new Deno.errors.FilesystemLoop(`too many levels of symbolic links: ${path}`);
}

/** Line count as editors show it: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
