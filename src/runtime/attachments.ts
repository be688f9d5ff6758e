/**
 * The one format of a file or folder attached to a prompt (the REPL's `@path` mentions, an ACP
 * editor's resource links and embedded resources): an `<attachment>` block after the typed text,
 * separated by a blank line. The block's path is the attribute's value, with `"` written as `%22`
 * so a file name cannot close the attribute.
 */

/** What a block holds: a file's text (optionally a line range of it) or a folder's listing. */
export interface Attachment {
  kind: "file" | "folder";
  path: string;
  content: string;
  /** The 1-based inclusive line range the content is, when it is only part of the file. */
  lines?: { from: number; to: number };
}

/** One `<attachment>` block. */
export function attachmentBlock(attachment: Attachment): string {
  const { kind, path, content, lines } = attachment;
  const range = lines ? ` lines="${lines.from}-${lines.to}"` : "";
  return `<attachment ${kind}="${path.replaceAll('"', "%22")}"${range}>\n${content.trimEnd()}\n` +
    `</attachment>`;
}

/** The prompt sent: what was typed, then each attachment block after a blank line. */
export function withAttachments(text: string, blocks: readonly string[]): string {
  return [text, ...blocks].filter((part) => part).join("\n\n");
}
