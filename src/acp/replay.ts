/**
 * `session/load`: a saved svc session replayed to the editor as the updates its turns streamed:
 * prompts (and their images) as user message chunks, answers and thinking as agent chunks, each tool call as a
 * `tool_call` with its result. Compaction summaries and command notes are not replayed (the
 * editor shows the conversation; the session file keeps everything).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionMessage } from "../runtime/mod.ts";
import { text, toolCallStart, type UpdateContext } from "./updates.ts";

/** The updates that replay `messages`, in order. */
export function replayUpdates(
  messages: readonly SessionMessage[],
  ctx: UpdateContext,
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      if (message.content) {
        updates.push({ sessionUpdate: "user_message_chunk", content: text(message.content) });
      }
      for (const { data, mimeType } of message.images ?? []) {
        updates.push({
          sessionUpdate: "user_message_chunk",
          content: { type: "image", data, mimeType },
        });
      }
    } else if (message.role === "assistant") {
      if (message.thinking) {
        updates.push({ sessionUpdate: "agent_thought_chunk", content: text(message.thinking) });
      }
      if (message.content) {
        updates.push({ sessionUpdate: "agent_message_chunk", content: text(message.content) });
      }
      for (const call of message.tool_calls ?? []) {
        const args = parsedArgs(call.function.arguments);
        updates.push(toolCallStart({ id: call.id, name: call.function.name, args }, ctx));
      }
    } else if (message.role === "tool" && message.tool_call_id) {
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: message.tool_call_id,
        status: message.ok === false ? "failed" : "completed",
        content: [{ type: "content", content: text(message.content ?? "") }],
      });
    }
  }
  return updates;
}

function parsedArgs(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch { /* kept raw below */ }
  return { _raw: json };
}
