/**
 * The prompt of an ACP `session/prompt`, as the REPL builds one from `@file` mentions
 * (src/runtime/attachments.ts): the text blocks, then each attachment after a blank line as an
 * `<attachment file="...">` block. A `resource_link` to a file is read with `file_read` through
 * the one invocation path (the policy applies, the audit records it, and an editor that offers
 * `fs/read_text_file` is read from); an embedded text `resource` is the editor's own text of the
 * file. A link that is no file stays a mention. Images and audio are refused: svc does not
 * advertise them (the images setting of the REPL is not built yet).
 */
import type * as acp from "@agentclientprotocol/sdk";
import { fileURLToPath } from "../util/file_url.ts";
import { attachmentBlock, withAttachments } from "../runtime/attachments.ts";

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
    } else {
      return { problem: `${block.type} content is not supported (svc advertises text only)` };
    }
  }
  const prompt = withAttachments(texts.join("\n\n"), attachments);
  return prompt.trim() ? prompt : { problem: "the prompt is empty" };
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
