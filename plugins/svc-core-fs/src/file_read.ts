/** file_read: numbered lines of a text file under a header with line and character counts. */
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, plural, resolvePath } from "../../../src/plugin/api.ts";
import { displayPath, formatSize, looksBinary } from "./common.ts";
import { cutText } from "../../../src/tool/text.ts";
import { readThrough } from "../../../src/tool/file_access.ts";
import { imageType, MAX_IMAGE_BYTES } from "../../../src/tool/images.ts";

const schema = (z: Zod) =>
  z.object({
    path: z.string(),
    offset: z.number().int().min(1).optional(),
    limit: z.number().int().min(0).optional(),
  });

/** Room kept under tool_max_result_chars for the header and the continuation marker. */
const RESERVE = 400;

/** The file_read tool. */
export const fileRead: Tool = {
  name: "file_read",
  category: "read",
  description:
    "Read a text file: a header with line and char totals, then numbered lines. Page with offset (1-based line) and limit; limit 0 = header only.",
  schema,
  aliases: ["read_file", "read", "view"],
  pathArgs: ["path"],
  run: (args, ctx) => readFile(args as ArgsOf<typeof schema>, ctx),
};

async function readFile(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const abs = resolvePath(ctx.worktree, args.path);
  if (typeof abs !== "string") return abs;
  const shown = displayPath(ctx.worktree, abs);
  const cap = ctx.config.tool_max_result_chars;
  const scan = new LineScan(
    args.offset ?? 1,
    args.limit ?? Infinity,
    cap > 0 ? Math.max(cap - RESERVE, 200) : Infinity,
  );
  if (ctx.files?.readText) {
    // The editor's text of the file (an unsaved buffer included), not the disk's.
    try {
      const text = await readThrough(ctx.files.readText, abs, { signal: ctx.signal });
      if (text === null) return fail(`Path not found: ${shown}`);
      scan.push(text);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      return fsError(err, shown);
    }
    return scan.render(shown);
  }
  let file: Deno.FsFile;
  try {
    const info = await Deno.stat(abs);
    if (info.isDirectory) return fail(`${shown} is a directory; use list_dir`);
    if (!info.isFile) return fail(`${shown} is not a regular file`);
    file = await Deno.open(abs, { read: true });
  } catch (err) {
    return fsError(err, shown);
  }
  try {
    const buffer = new Uint8Array(64 * 1024);
    const decoder = new TextDecoder();
    for (let first = true;; first = false) {
      ctx.signal.throwIfAborted();
      const n = await file.read(buffer);
      if (n === null) break;
      const bytes = buffer.subarray(0, n);
      if (first && looksBinary(bytes)) {
        const { size } = await file.stat();
        const mimeType = imageType(bytes);
        if (mimeType && size <= MAX_IMAGE_BYTES) return await readImage(abs, { shown, mimeType });
        return fail(`Cannot read ${shown}: binary file (${formatSize(size)})`);
      }
      scan.push(decoder.decode(bytes, { stream: true }));
    }
    scan.push(decoder.decode());
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fsError(err, shown);
  } finally {
    file.close();
  }
  return scan.render(shown);
}

/** Streams decoded text, counting every line and character, keeping only the requested lines. */
class LineScan {
  chars = 0;
  line = 1;
  partial = false;
  kept: string[] = [];
  current = "";
  used = 0;
  /** Line where output stopped because the character budget ran out. */
  stoppedAt = 0;

  constructor(readonly offset: number, readonly limit: number, readonly budget: number) {}

  private wanted(): boolean {
    return this.stoppedAt === 0 && this.line >= this.offset &&
      this.line < this.offset + this.limit;
  }

  push(text: string): void {
    this.chars += text.length;
    let start = 0;
    while (start <= text.length) {
      const nl = text.indexOf("\n", start);
      const end = nl === -1 ? text.length : nl;
      if (end > start) this.partial = true;
      if (this.wanted() && end > start && this.current.length <= this.budget) {
        this.current += text.slice(start, Math.min(end, start + this.budget + 1));
      }
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  }

  private endLine(): void {
    if (this.wanted()) {
      const text = this.current.endsWith("\r") ? this.current.slice(0, -1) : this.current;
      const cost = text.length + 8;
      if (this.used + cost > this.budget && this.kept.length > 0) this.stoppedAt = this.line;
      else if (this.used + cost > this.budget) {
        this.kept.push(`${cutText(text, this.budget)} [line cut at ${this.budget} chars]`);
        this.stoppedAt = this.line + 1;
      } else {
        this.kept.push(text);
        this.used += cost;
      }
    }
    this.current = "";
    this.partial = false;
    this.line++;
  }

  render(shown: string): string | ToolOutput {
    if (this.partial) this.endLine();
    const total = this.line - 1;
    const header = `${shown}: ${plural(total, "line")}, ${plural(this.chars, "char")}`;
    if (this.limit === 0) return header;
    if (this.offset > 1 && this.offset > total) {
      return fail(`Offset ${this.offset} is past the end of ${shown} (${plural(total, "line")})`);
    }
    if (this.kept.length === 0) return header;
    const last = this.offset + this.kept.length - 1;
    const width = String(last).length;
    const body = this.kept.map((text, i) => `${String(this.offset + i).padStart(width)}\t${text}`);
    const partial = this.offset > 1 || last < total;
    const head = partial ? `${header}; showing lines ${this.offset}-${last}` : header;
    const out = [head, ...body];
    const next = this.stoppedAt || last + 1;
    if (next <= total) {
      out.push(`[... ${plural(total - next + 1, "more line")}; continue with offset=${next}]`);
    }
    return out.join("\n");
  }
}

/**
 * An image file (PNG, JPEG, GIF, WebP up to 5 MiB) as a description and its image, which served
 * MCP calls return as image content.
 */
async function readImage(
  abs: string,
  { shown, mimeType }: { shown: string; mimeType: string },
): Promise<ToolOutput> {
  const bytes = await Deno.readFile(abs);
  return {
    content: `${shown}: ${mimeType} image (${formatSize(bytes.length)}), attached as an image`,
    // Native base64: node:buffer loads Deno's Node layer at start (docs/performance.md).
    images: [{ data: bytes.toBase64(), mimeType }],
  };
}
