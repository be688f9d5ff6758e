import type { ChatMessage, UserContentPart } from "../provider/types.ts";
import type { SessionMessage } from "../session/types.ts";
import type { ToolImage } from "../tool/types.ts";
import { dataUrl, imageLabel } from "../tool/images.ts";

/** How the messages are built. */
export interface ContextOptions {
  /** What the model saw of each tool result this process ran (tool_call_id to content). */
  live?: Pick<ReadonlyMap<string, string>, "get">;
  /**
   * The model takes images: a prompt's images go as image parts, and the images of a round's tool
   * results follow the results as a user message. Otherwise each image is named in a text note.
   */
  images?: boolean;
}

/**
 * The messages sent to the provider for a session: system messages first, then the log from the
 * last compaction boundary on (its summary as a system message). `command` messages never go out.
 * Chat-completions backends take images only in user messages, so tool results' images go in one
 * user message after the round's results (a tool message must follow its call directly).
 */
export function buildContext(
  system: string[],
  log: readonly SessionMessage[],
  options: ContextOptions = {},
): ChatMessage[] {
  const live = options.live ?? new Map<string, string>();
  const out: ChatMessage[] = system.map((content) => ({ role: "system", content }));
  const toolImages: Array<{ name: string; image: ToolImage }> = [];
  const flush = () => {
    if (toolImages.length) out.push(toolImagesMessage(toolImages.splice(0)));
  };
  let start = 0;
  let summary: string | null = null;
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i].compact_from !== undefined) {
      start = Math.min(log[i].compact_from!, i);
      summary = log[i].content;
      break;
    }
  }
  if (summary !== null) {
    out.push({ role: "system", content: `Summary of the earlier conversation:\n${summary}` });
  }
  const answered = new Set<string>();
  for (const m of log.slice(start)) {
    if (m.role === "tool" && m.tool_call_id) answered.add(m.tool_call_id);
  }
  for (const m of log.slice(start)) {
    if (m.role !== "tool" && options.images) flush();
    if (m.role === "user") out.push(userMessage(m, options.images === true));
    else if (m.compact_from !== undefined) continue;
    else if (m.role === "system") {
      out.push({ role: "system", content: m.content ?? "" });
    } else if (m.role === "assistant") {
      // Calls without a stored answer (a crash mid-round) are dropped so the history stays valid.
      const calls = (m.tool_calls ?? []).filter((c) => answered.has(c.id));
      if (!m.content && calls.length === 0) continue;
      out.push({
        role: "assistant",
        content: m.content ?? "",
        ...(calls.length ? { tool_calls: calls } : {}),
        // Sent back only to the provider that sent them (the provider layer decides).
        ...(m.provider_fields ? { provider_fields: m.provider_fields } : {}),
      });
    } else if (m.role === "tool" && m.tool_call_id) {
      const content = live.get(m.tool_call_id) ?? m.content ?? "";
      const images = m.images ?? [];
      const note = images.length && !options.images ? `\n${notSent(images)}` : "";
      out.push({ role: "tool", tool_call_id: m.tool_call_id, content: content + note });
      if (options.images) {
        for (const image of images) toolImages.push({ name: m.name ?? "a tool", image });
      }
    }
  }
  flush();
  return out;
}

/** A user message: its text, and its images as parts (or a note naming them). */
function userMessage(m: SessionMessage, images: boolean): ChatMessage {
  const text = m.content ?? "";
  if (!m.images?.length) return { role: "user", content: text };
  if (!images) return { role: "user", content: `${text}\n\n${notSent(m.images)}` };
  const parts: UserContentPart[] = text ? [{ type: "text", text }] : [];
  for (const image of m.images) parts.push(imagePart(image));
  return { role: "user", content: parts };
}

function toolImagesMessage(images: Array<{ name: string; image: ToolImage }>): ChatMessage {
  const names = [...new Set(images.map((i) => i.name))].join(", ");
  return {
    role: "user",
    content: [
      { type: "text", text: `[the image${images.length > 1 ? "s" : ""} ${names} returned above]` },
      ...images.map(({ image }) => imagePart(image)),
    ],
  };
}

function imagePart(image: ToolImage): UserContentPart {
  return { type: "image_url", image_url: { url: dataUrl(image) } };
}

/** The note that stands for images a model that takes none does not get. */
function notSent(images: readonly ToolImage[]): string {
  return `[not sent, the model does not accept images: ${images.map(imageLabel).join(", ")}]`;
}
