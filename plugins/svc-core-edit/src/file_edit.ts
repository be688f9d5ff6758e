/** file_edit: exact string replacement in a text file, with a diff preview in the status line. */
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, resolvePath } from "../../../src/plugin/api.ts";
import { readThrough } from "../../../src/tool/file_access.ts";
import { writeTarget, writeText } from "./common.ts";
import { diffPreview } from "./diff_preview.ts";
import { findAll, notFoundHint } from "./matching.ts";

const schema = (z: Zod) =>
  z.object({
    path: z.string(),
    old: z.string(),
    new: z.string(),
    count: z.number().int().min(0).optional(),
  });

/** The file_edit tool. */
export const fileEdit: Tool = {
  name: "file_edit",
  category: "edit",
  description:
    "Replace exact text in a file. old must match exactly, whitespace included, and be unique unless count is set (0 = all). Add nearby lines to make old unique.",
  schema,
  aliases: ["edit"],
  argAliases: { old_text: "old", new_text: "new", file: "path" },
  pathArgs: ["path"],
  run: (args, ctx) => editFile(args as ArgsOf<typeof schema>, ctx),
};

async function editFile(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const abs = resolvePath(ctx.worktree, args.path);
  if (typeof abs !== "string") return abs;
  if (args.old === "") {
    return fail("old is empty; use file_write to create or replace a whole file");
  }
  if (args.old === args.new) return fail("old and new are identical; nothing to change");
  try {
    const target = await writeTarget(abs);
    const info = await Deno.stat(target);
    if (info.isDirectory) return fail(`${abs} is a directory`);
    if (!info.isFile) return fail(`${abs} is not a regular file`);
    const text = await editedText(ctx, target);
    if (typeof text !== "string") return fail(`Cannot edit ${abs}: ${text.problem}`);
    let { old, new: replacement } = args;
    let at = findAll(text, old);
    if (at.length === 0 && text.includes("\r\n") && /(?<!\r)\n/.test(old)) {
      // The model saw CRLF lines without their \r: match and write with the file's line endings.
      old = old.replace(/\r?\n/g, "\r\n");
      replacement = replacement.replace(/\r?\n/g, "\r\n");
      at = findAll(text, old);
    }
    if (at.length === 0) return fail(`old was not found in ${abs}; ${notFoundHint(text, old)}`);
    const count = args.count ?? 1;
    if (count > 0 && at.length > count) {
      return fail(
        `old matches ${at.length} times in ${abs} but count is ${count}; add surrounding lines to make it unique, or set count to ${at.length} (or 0 for all)`,
      );
    }
    let updated = "";
    let from = 0;
    for (const index of at) {
      updated += text.slice(from, index) + replacement;
      from = index + old.length;
    }
    updated += text.slice(from);
    ctx.signal.throwIfAborted();
    await writeText(ctx, target, { content: updated });
    const lines = linesOf(text, at.slice(0, 5));
    const where = at.length > 5 ? `${lines.join(", ")}, ...` : lines.join(", ");
    const noun = at.length === 1 ? "occurrence" : "occurrences";
    return {
      content: `Replaced ${at.length} ${noun} in ${abs} (line${
        lines.length > 1 ? "s" : ""
      } ${where})`,
      status: await diffPreview(abs, { before: text, after: updated }),
    };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fsError(err, abs, { action: "edit" });
  }
}

/** The file's text: the editor's (an unsaved buffer included) when it reads files, else the disk's. */
async function editedText(ctx: ToolContext, target: string): Promise<string | { problem: string }> {
  if (ctx.files?.readText) {
    const text = await readThrough(ctx.files.readText, target, { signal: ctx.signal });
    return text ?? { problem: "the editor has no such file" };
  }
  const bytes = await Deno.readFile(target);
  if (bytes.includes(0)) return { problem: "binary file" };
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { problem: "not valid UTF-8 text" };
  }
}

/** 1-based line numbers of ascending character indexes, in one pass over the text. */
function linesOf(text: string, indexes: number[]): number[] {
  let line = 1;
  let from = 0;
  return indexes.map((index) => {
    for (let i = text.indexOf("\n", from); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) {
      line++;
      from = i + 1;
    }
    return line;
  });
}
