/**
 * The context figure of a saved session: the estimated size of the request its next turn would
 * send, by the engine's own estimate (src/engine/context_size.ts) over the messages the engine
 * would send (src/engine/context.ts: from the last compaction on, its summary in their place).
 */
import { buildContext } from "../engine/context.ts";
import { requestContext } from "../engine/context_size.ts";
import type { SessionData } from "../session/types.ts";

/** What `svc sessions show` says about a session's context. */
export interface SessionContextFigure {
  /** Estimated tokens of the session's messages in the next request. */
  estimated_tokens: number;
  /** The model's context window in tokens, as the last automatic compaction saw it; else null. */
  window: number | null;
  /** The first message (1-based) sent verbatim: 1 unless the session was compacted. */
  from_message: number;
  /** Compaction summaries in the session. */
  compactions: number;
  /** The prompt tokens the backend reported for the session's last request; null if none. */
  last_prompt_tokens: number | null;
}

/**
 * The next request's estimated size for `data`, without the system prompt and tool schemas (they
 * depend on the worktree's config and plugins at the time of the turn).
 */
export function sessionContext(data: Pick<SessionData, "messages">): SessionContextFigure {
  const messages = data.messages;
  let from = 0;
  let compactions = 0;
  let window: number | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].compact_from === undefined) continue;
    if (compactions === 0) from = Math.min(messages[i].compact_from!, i);
    window ??= messages[i].compaction?.window ?? null;
    compactions++;
  }
  const estimate = requestContext({
    model: "",
    messages: buildContext([], messages, { images: true }),
  });
  let last: number | null = null;
  for (let i = messages.length - 1; i >= 0 && last === null; i--) {
    const tokens = messages[i].usage?.prompt_tokens;
    if (messages[i].role === "assistant" && typeof tokens === "number") last = tokens;
  }
  return {
    estimated_tokens: estimate.estimated_tokens,
    window: estimate.window ?? window,
    from_message: from + 1,
    compactions,
    last_prompt_tokens: last,
  };
}
