import type { ChatClient, ChatMessage, Reasoning, Usage } from "../provider/types.ts";
import { estimateTokens } from "../provider/usage.ts";
import type { SessionLog } from "../session/log.ts";
import type { SessionMessage } from "../session/types.ts";
import { cutText, tailText } from "../util/text_cut.ts";

export type CompactionResult =
  /** `usage`: the summary request's, as reported or estimated (docs/sessions.md). */
  | { ok: true; summarized: number; kept: number; usage: Usage }
  | { ok: false; message: string };

/**
 * Compacts the context sent to the provider: messages before a boundary are summarized into a
 * record carrying `compact_from`; the last `keep` messages stay verbatim (the boundary moves back
 * to a user message so a tool exchange is never split). The file keeps the full history.
 */
export async function compactSession(
  session: SessionLog,
  client: ChatClient,
  options: {
    model: string;
    keep: number;
    reasoning?: Reasoning;
    signal?: AbortSignal;
    /** What made this compaction; stored on the summary record as `compaction`. */
    record?: SessionMessage["compaction"];
    /** The transcript sent for summary is cut to this many characters (its newest end kept). */
    maxChars?: number;
  },
): Promise<CompactionResult> {
  const { model, keep, reasoning, signal } = options;
  const log = session.data.messages;
  const plan = compactionPlan(log, keep);
  if (!plan) return { ok: false, message: "Nothing to compact yet" };
  const { boundary, previous, slice } = plan;
  const transcript = tailText(
    slice.map((m) => `${m.role}${m.name ? ` (${m.name})` : ""}: ${cutText(m.content ?? "", 4000)}`)
      .join("\n"),
    options.maxChars ?? Infinity,
  );
  const messages: ChatMessage[] = [
    {
      role: "system",
      content:
        "Summarize this conversation so an assistant can continue it: goals, decisions, facts found, files touched, open questions. Be dense.",
    },
    {
      role: "user",
      content: `${previous ? `Earlier summary:\n${previous}\n\n` : ""}${transcript}`,
    },
  ];
  const reply = await client.chatNonStreaming(
    { model, max_tokens: 1500, reasoning, messages },
    signal,
  );
  if (reply.error) return { ok: false, message: `Compaction failed: ${reply.error}` };
  const usage = reply.usage ?? summaryEstimate(messages, reply.content);
  await session.appendMessage({
    role: "system",
    content: reply.content.trim(),
    timestamp: new Date().toISOString(),
    compact_from: boundary,
    usage,
    ...(options.record ? { compaction: options.record } : {}),
  });
  // Command records (slash commands, never sent to the model) are not kept context.
  const kept = log.slice(boundary, -1).filter((m) => m.role !== "command").length;
  return { ok: true, summarized: slice.length, kept, usage };
}

/** The summary request's usage when the backend reported none: about four characters a token. */
function summaryEstimate(messages: ChatMessage[], answer: string): Usage {
  const prompt = estimateTokens(messages.reduce((n, m) => n + (m.content?.length ?? 0), 0));
  const completion = estimateTokens(answer.length);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    estimated: true,
  };
}

/**
 * Where a compaction would cut `log`: the last summary's start and text, the boundary (the last
 * `keep` messages, command records not counted, moved back to a user message) and the messages to summarize; null when there is
 * nothing to summarize yet.
 */
export function compactionPlan(
  log: readonly SessionMessage[],
  keep: number,
): { boundary: number; previous: string; slice: SessionMessage[] } | null {
  let start = 0;
  let previous = "";
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i].compact_from !== undefined) {
      start = log[i].compact_from!;
      previous = log[i].content ?? "";
      break;
    }
  }
  // The last `keep` messages the model sees: command records are not counted.
  let boundary = log.length;
  for (let seen = 0; boundary > start && seen < keep; boundary--) {
    if (log[boundary - 1].role !== "command") seen++;
  }
  while (boundary > start && log[boundary]?.role !== "user") boundary--;
  if (boundary <= start) return null;
  const slice = log.slice(start, boundary).filter((m) =>
    m.compact_from === undefined && m.role !== "command"
  );
  return slice.length ? { boundary, previous, slice } : null;
}
