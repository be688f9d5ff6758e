import type { ChatToolCall, Usage } from "../provider/types.ts";
import type { PermissionRecord, TurnError } from "../shared/types.ts";
export type { PermissionRecord };

export type Role = "user" | "assistant" | "command" | "system" | "tool";

/** One stored message. `command` messages are never sent to the provider. */
export interface SessionMessage {
  role: Role;
  content: string | null;
  timestamp: string;
  /** assistant: who answered and how. */
  model?: string;
  provider?: string;
  duration?: number;
  thinking?: string;
  reasoning?: string | boolean;
  tool_calls?: ChatToolCall[];
  usage?: Usage;
  /** assistant: the round's cost in USD, when its model has a price. */
  cost_usd?: number;
  finish_reason?: string | null;
  /** assistant: the round ended early (cancel or stream failure); content is what arrived. */
  partial?: boolean;
  /** tool: which call this answers. */
  tool_call_id?: string;
  name?: string;
  ok?: boolean;
  analysis?: string;
  /** system: a compaction summary; messages before this index are summarized. */
  compact_from?: number;
  /** system: what made the compaction summary: `/compact`, or automatic (and why, how full). */
  compaction?: {
    trigger: "manual" | "auto";
    reason?: "threshold" | "overflow";
    estimated_tokens?: number;
    window?: number;
  };
}

/** The session document as stored in `.svc/sessions/<name>.json`. */
export interface SessionData {
  name: string;
  created_at: string;
  updated_at: string;
  parent_id?: string;
  /** A fork: the session its history was copied from and the last turn copied (1-based). */
  forked_from?: { session: string; turn: number };
  messages: SessionMessage[];
  errors: TurnError[];
  permissions: PermissionRecord[];
  sub_sessions?: string[];
}
