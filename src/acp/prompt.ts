/**
 * The prompt of an ACP `session/prompt`, as the REPL builds one from `@file` mentions
 * (src/runtime/attachments.ts): the text blocks, then each attachment after a blank line as an
 * `<attachment file="...">` block. A `resource_link` to a file is read with `file_read` through
 * the one invocation path (the policy applies, the audit records it, and an editor that offers
 * `fs/read_text_file` is read from); an embedded text `resource` is the editor's own text of the
 * file. A link that is no file stays a mention. Image blocks go with the prompt as images
 * (`promptImages`) for a model that takes them; audio is refused (svc does not advertise it).
 */
import type * as acp from "@agentclientprotocol/sdk";
import { fileURLToPath } from "../util/file_url.ts";
import { attachmentBlock, withAttachments } from "../runtime/attachments.ts";
import { imageFromBase64, MAX_PROMPT_IMAGES } from "../tool/images.ts";
import type { ToolImage } from "../tool/types.ts";

/** Reads one linked file for the prompt: file_read's result, or why it could not. */
export type ReadLinked = (path: string) => Promise<{ ok: boolean; content: string }>;

/** The prompt text, or the problem with a block svc cannot take. */
export async function promptText(
  blocks: readonly acp.ContentBlock[],
  read: ReadLinked,
): Promise<string | { problem: string }> {
  const texts: string[] = [];
  const attachments: string[] = [];
  for (const block of blocks) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "resource_link") {
      const path = filePath(block.uri);
      const linked = path === null ? null : await read(path);
      if (linked?.ok) {
        attachments.push(attachmentBlock({ kind: "file", path: path!, content: linked.content }));
      } else texts.push(`[${block.title ?? block.name}](${path ?? block.uri})`);
    } else if (block.type === "resource") {
      const { resource } = block;
      const shown = filePath(resource.uri) ?? resource.uri;
      if (!("text" in resource)) return { problem: `${shown}: binary resources are not supported` };
      attachments.push(attachmentBlock({ kind: "file", path: shown, content: resource.text }));
    } else if (block.type !== "image") {
      return { problem: `${block.type} content is not supported (svc does not advertise it)` };
    }
  }
  const prompt = withAttachments(texts.join("\n\n"), attachments);
  if (prompt.trim()) return prompt;
  // Images alone: the prompt says so (a turn needs text).
  const images = blocks.filter((block) => block.type === "image").length;
  return images ? "(image)" : { problem: "the prompt is empty" };
}

/**
 * The prompt's image blocks as images, checked (a PNG, JPEG, GIF or WebP of at most 5 MiB, of the
 * type it is declared as; at most MAX_PROMPT_IMAGES), or the problem naming the bad one.
 */
export function promptImages(
  blocks: readonly acp.ContentBlock[],
): ToolImage[] | { problem: string } {
  const given = blocks.filter((block): block is Extract<acp.ContentBlock, { type: "image" }> =>
    block.type === "image"
  );
  if (given.length > MAX_PROMPT_IMAGES) {
    return { problem: `${given.length} images: a prompt may carry at most ${MAX_PROMPT_IMAGES}` };
  }
  const images: ToolImage[] = [];
  for (const [index, block] of given.entries()) {
    const name = block.uri ? block.uri.split(/[/?#]/).filter(Boolean).pop() : undefined;
    try {
      images.push(imageFromBase64(block.data, { mimeType: block.mimeType, name }));
    } catch (err) {
      return { problem: `image ${index + 1}: ${(err as Error).message}` };
    }
  }
  return images;
}

/** A `file://` address as its path; null for any other address. */
function filePath(uri: string): string | null {
  if (!uri.startsWith("file://")) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}
