/**
 * A stored session as a person reads it: the plain text of `svc sessions show` and the Markdown of
 * `svc sessions export`. Prompts and answers in full, each tool call folded to one line with the
 * first line of its result, thinking only when asked for, compaction summaries marked as such.
 */
import { cutText } from "../util/text_cut.ts";
import type { SessionData, SessionMessage } from "./types.ts";
import type { ChatToolCall } from "../provider/types.ts";
import { imageLabel } from "../tool/images.ts";

export interface TranscriptOptions {
  /** Include the assistant's thinking (default: omitted). */
  thinking?: boolean;
}

/** One turn of the conversation, as both renderings walk it. */
interface Entry {
  index: number;
  message: SessionMessage;
  /** Assistant: its calls, each with the tool message that answered it (if any). */
  calls: Array<{ call: ChatToolCall; result?: SessionMessage }>;
}

/** The messages to show: tool results folded into the call that asked for them. */
function entries(messages: readonly SessionMessage[]): Entry[] {
  const results = new Map<string, SessionMessage>();
  for (const m of messages) {
    if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m);
  }
  const called = new Set<string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) called.add(c.id);
  const out: Entry[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool" && message.tool_call_id && called.has(message.tool_call_id)) {
      return; // shown on its call's line
    }
    const calls = (message.tool_calls ?? []).map((call) => ({
      call,
      result: results.get(call.id),
    }));
    out.push({ index, message, calls });
  });
  return out;
}

/** A message's images as `[image: shot.png (image/png, 1.2 KiB)]` lines: never their data. */
function imageLines(message: SessionMessage | undefined, indent = ""): string[] {
  return (message?.images ?? []).map((image) => `${indent}[image: ${imageLabel(image)}]`);
}

/** `name {args}` cut to a line. */
function callText(call: ChatToolCall): string {
  const args = call.function.arguments.replace(/\s+/g, " ").trim();
  return cutLine(`${call.function.name} ${args}`, 100);
}

/** What a tool result says in one line: failed or not, and its first non-empty line. */
export function resultLine(result: SessionMessage | undefined): string {
  if (!result) return "(no result stored)";
  const lines = (result.content ?? "").split("\n").filter((l) => l.trim());
  const first = lines.length ? cutLine(lines[0].trim(), 100) : "(empty)";
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
  return `${result.ok === false ? "failed: " : ""}${first}${more}`;
}

function cutLine(text: string, max: number): string {
  return text.length > max ? `${cutText(text, max - 3)}...` : text;
}

/** `1 turn`, `3 turns`. */
export function counted(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `2026-11-22 05:06:07` from an ISO time; the text as is when it is not one. */
export function shortTime(iso: string | undefined): string {
  if (!iso) return "-";
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso) ? iso.slice(0, 19).replace("T", " ") : iso;
}

/** The heading of one message: who, and for an assistant the model. */
function heading(entry: Entry): string {
  const m = entry.message;
  if (m.compact_from !== undefined) {
    const how = m.compaction?.trigger === "auto" ? `automatic, ${m.compaction.reason ?? ""}` : "";
    return `compaction summary (${how.replace(/, $/, "")}${
      how ? "; " : ""
    }messages 1-${m.compact_from} summarized)`;
  }
  const partial = m.partial ? ", cut short" : "";
  return m.role === "assistant" && m.model ? `assistant (${m.model}${partial})` : m.role;
}

/** The conversation as plain text, untrusted parts unescaped (the caller escapes the whole). */
export function transcriptText(data: SessionData, options: TranscriptOptions = {}): string {
  const blocks: string[] = [];
  for (const entry of entries(data.messages)) {
    const m = entry.message;
    const lines = [`--- #${entry.index + 1} ${heading(entry)} · ${shortTime(m.timestamp)}`];
    if (options.thinking && m.thinking?.trim()) {
      lines.push(...m.thinking.trim().split("\n").map((l) => `  | ${l}`));
    }
    if (m.role === "tool") lines.push(`${m.name ?? "tool"}: ${resultLine(m)}`);
    else if (m.content?.trim()) lines.push(m.content.trimEnd());
    lines.push(...imageLines(m));
    for (const { call, result } of entry.calls) {
      lines.push(`  > ${callText(call)} => ${resultLine(result)}`, ...imageLines(result, "    "));
    }
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}

/** A code span that holds `text` whatever backticks it contains. */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The session as a Markdown document (`svc sessions export`). */
export function transcriptMarkdown(data: SessionData, options: TranscriptOptions = {}): string {
  const turns = data.messages.filter((m) => m.role === "user").length;
  const out = [
    `# Session ${data.name}`,
    "",
    `- created: ${shortTime(data.created_at)}`,
    `- last activity: ${shortTime(data.updated_at)}`,
    `- ${counted(data.messages.length, "message")}, ${counted(turns, "turn")}`,
  ];
  for (const entry of entries(data.messages)) {
    const m = entry.message;
    const title = heading(entry).replace(/^./, (c) => c.toUpperCase());
    out.push("", `## ${title} · ${shortTime(m.timestamp)}`, "");
    if (options.thinking && m.thinking?.trim()) {
      out.push(...m.thinking.trim().split("\n").map((l) => `> ${l}`), "");
    }
    if (m.role === "tool") out.push(`${codeSpan(m.name ?? "tool")}: ${codeSpan(resultLine(m))}`);
    else if (m.content?.trim()) out.push(m.content.trim());
    const images = imageLines(m).map((line) => `- ${codeSpan(line)}`);
    if (images.length) out.push(...(m.content?.trim() ? [""] : []), ...images);
    if (entry.calls.length) {
      if (m.content?.trim() || images.length) out.push("");
      for (const { call, result } of entry.calls) {
        out.push(`- ${codeSpan(callText(call))} → ${codeSpan(resultLine(result))}`);
        out.push(...imageLines(result).map((line) => `  - ${codeSpan(line)}`));
      }
    }
  }
  return `${out.join("\n")}\n`;
}
