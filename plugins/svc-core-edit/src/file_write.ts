/** file_write: creates, overwrites or appends to a text file, crash-safely. */
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, plural, resolvePath } from "../../../src/plugin/api.ts";
import { writeFileConfined } from "../../../src/tool/confined_write.ts";
import { countLines, currentText, writeOptions, writeTarget, writeText } from "./common.ts";

const schema = (z: Zod) =>
  z.object({
    path: z.string(),
    content: z.string(),
    mode: z.enum(["write", "append"]).optional().describe("Default write"),
  });

/** The file_write tool. */
export const fileWrite: Tool = {
  name: "file_write",
  category: "edit",
  description:
    "Write a text file (parent dirs created): mode write replaces it, append adds to the end.",
  schema,
  aliases: ["write_file", "write"],
  pathArgs: ["path"],
  run: (args, ctx) => writeFile(args as ArgsOf<typeof schema>, ctx),
};

async function writeFile(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const abs = resolvePath(ctx.worktree, args.path);
  if (typeof abs !== "string") return abs;
  const append = args.mode === "append";
  try {
    const target = await writeTarget(abs);
    let existing: Deno.FileInfo | null = null;
    try {
      existing = await Deno.stat(target);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (existing?.isDirectory) return fail(`${abs} is a directory`);
    if (existing && !existing.isFile) return fail(`${abs} is not a regular file`);
    ctx.signal.throwIfAborted();
    if (ctx.files?.writeText) {
      // The editor writes the file; an append adds to the text it has.
      const before = append && existing ? await currentText(ctx, target) : "";
      await writeText(ctx, target, { content: before + args.content });
    } else {
      let data = new TextEncoder().encode(args.content);
      if (append && existing) data = concat(await Deno.readFile(target), data);
      await writeFileConfined(target, data, writeOptions(ctx));
    }
    const verb = !existing ? "Created" : append ? "Appended" : "Overwritten";
    const size = `${plural(countLines(args.content), "line")}, ${
      plural(args.content.length, "char")
    }`;
    return `${verb} ${abs} (${size})`;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fsError(err, abs, { action: "write" });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
