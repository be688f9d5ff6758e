// deno-lint-ignore-file no-explicit-any -- content parts are untyped JSON, checked field by field
/**
 * Reads a message's `content` in either form servers send: a string, or a list of parts (Mistral's
 * reasoning models: `[{"type":"thinking","thinking":[{"type":"text","text":"..."}]}]`, then
 * `[{"type":"text","text":"..."}]`). Text parts are the answer, thinking and reasoning parts the
 * thinking; parts of any other type are not shown and are named in `ignored`.
 */

/** What one `content` value holds. */
export interface ContentRead {
  text: string;
  thinking: string;
  /** The types of the parts that were ignored, one entry per part. */
  ignored: string[];
}

const THINKING_TYPES = new Set(["thinking", "reasoning", "reasoning_text"]);

/** The answer text, the thinking and the ignored part types of one `content` value. */
export function readContent(content: unknown): ContentRead {
  const read: ContentRead = { text: "", thinking: "", ignored: [] };
  if (typeof content === "string") read.text = content;
  else if (Array.isArray(content)) { for (const part of content) readPart(part, read); }
  return read;
}

function readPart(part: any, read: ContentRead): void {
  if (typeof part === "string") {
    read.text += part;
    return;
  }
  const type = typeof part?.type === "string" ? part.type : undefined;
  if ((type === "text" || type === undefined) && typeof part?.text === "string") {
    read.text += part.text;
  } else if (type && THINKING_TYPES.has(type)) {
    read.thinking += textOf(part.thinking ?? part.reasoning ?? part.text ?? part.content);
  } else {
    read.ignored.push(type ?? "untyped");
  }
}

/** The text of a thinking part's body: a string, a text part, or a list of them. */
function textOf(value: any): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("");
  if (value && typeof value === "object" && typeof value.text === "string") return value.text;
  return "";
}
