import type { ChatMessage } from "../provider/types.ts";
import type { SessionMessage } from "../session/types.ts";

/**
 * The messages sent to the provider for a session: system messages first, then the log from the
 * last compaction boundary on (its summary as a system message). `command` messages never go out.
 */
export function buildContext(
  system: string[],
  log: readonly SessionMessage[],
  live: Pick<ReadonlyMap<string, string>, "get"> = new Map(),
): ChatMessage[] {
  const out: ChatMessage[] = system.map((content) => ({ role: "system", content }));
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
    if (m.role === "user") out.push({ role: "user", content: m.content ?? "" });
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
      out.push({ role: "tool", tool_call_id: m.tool_call_id, content });
    }
  }
  return out;
}
