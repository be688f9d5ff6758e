/**
 * `@path` mentions in a prompt: each names a file (optionally a line range, `@src/a.ts:10-40`) or
 * a folder of the worktree whose content goes with the prompt as an attachment. The content is
 * read by the file_read and list_dir tools through the one invocation path, so it is capped as
 * file_read caps it, the policy applies, and the session's audit records every read; the
 * attachments themselves are part of the user message the session stores. An image file (by its
 * bytes: file_read returns it as an image) goes as an image of the prompt, not as text. A mention
 * of something that does not exist stays plain text (`@someone`).
 */
import type { Engine, SessionLog } from "../runtime/mod.ts";
import { attachmentBlock } from "../runtime/attachments.ts";
import type { ToolImage } from "../tool/types.ts";
import { imageLabel } from "../tool/images.ts";

/** One `@path` of a prompt. */
export interface Mention {
  /** As typed, without the `@`. */
  text: string;
  path: string;
  /** A line range: first and last line (1-based, inclusive); `to` absent for one line on. */
  from?: number;
  to?: number;
}

const MENTION = /(?:^|(?<=\s))@([^\s@]+)/g;
const RANGE = /^(.+?):(\d+)(?:-(\d+))?$/;

/** The distinct mentions of `text`, trailing punctuation dropped. */
export function findMentions(text: string): Mention[] {
  const seen = new Set<string>();
  const out: Mention[] = [];
  for (const m of text.matchAll(MENTION)) {
    const typed = m[1].replace(/[.,;:!?)\]'"]+$/, "");
    if (!typed || seen.has(typed)) continue;
    seen.add(typed);
    const range = RANGE.exec(typed);
    if (!range) {
      out.push({ text: typed, path: typed });
      continue;
    }
    const from = Number(range[2]);
    const to = range[3] === undefined ? from : Number(range[3]);
    out.push({ text: typed, path: range[1], from: Math.max(1, from), to: Math.max(from, to) });
  }
  return out;
}

/** What attaching did: the attachment blocks and images, and a line per mention for the screen. */
export interface Attached {
  blocks: string[];
  images: ToolImage[];
  notes: { ok: boolean; text: string }[];
}

/** Reads each mention that names something in the worktree with file_read or list_dir. */
export async function attachMentions(
  text: string,
  options: { engine: Engine; session: SessionLog; worktree: string; signal: AbortSignal },
): Promise<Attached> {
  const attached: Attached = { blocks: [], images: [], notes: [] };
  for (const mention of findMentions(text)) {
    const kind = await kindOf(options.worktree, mention.path);
    if (!kind) continue;
    const args: Record<string, unknown> = { path: mention.path };
    if (kind === "file" && mention.from !== undefined) {
      args.offset = mention.from;
      args.limit = mention.to! - mention.from + 1;
    }
    const tool = kind === "folder" ? "list_dir" : "file_read";
    const inv = await options.engine.runTool(tool, JSON.stringify(args), {
      session: options.session,
      signal: options.signal,
    });
    if (!inv.ok) {
      const why = inv.content.split("\n")[0];
      attached.notes.push({ ok: false, text: `@${mention.text} not attached: ${why}` });
      continue;
    }
    if (kind === "file" && inv.images?.length) {
      const images = inv.images.map((image) => ({ ...image, name: mention.path }));
      attached.images.push(...images);
      const labels = images.map((image) => imageLabel({ ...image, name: `@${mention.text}` }));
      attached.notes.push({ ok: true, text: `attached ${labels.join(", ")}` });
      continue;
    }
    const lines = mention.from !== undefined ? { from: mention.from, to: mention.to! } : undefined;
    attached.blocks.push(
      attachmentBlock({ kind, path: mention.path, content: inv.content, lines }),
    );
    attached.notes.push({ ok: true, text: `attached @${mention.text} (${sizeOf(inv.content)})` });
  }
  return attached;
}

async function kindOf(worktree: string, path: string): Promise<"file" | "folder" | null> {
  if (path.includes("\0")) return null;
  try {
    const info = await Deno.stat(path.startsWith("/") ? path : `${worktree}/${path}`);
    return info.isDirectory ? "folder" : info.isFile ? "file" : null;
  } catch {
    return null;
  }
}

function sizeOf(content: string): string {
  const lines = content.split("\n").length;
  return `${lines} line${lines === 1 ? "" : "s"}, ${content.length} chars`;
}
