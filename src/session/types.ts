import type { ChatToolCall, ProviderFields, Usage } from "../provider/types.ts";
import type { ToolImage } from "../tool/types.ts";
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
  /** assistant: fields its provider sent that svc keeps to send back to that provider only. */
  provider_fields?: ProviderFields;
  usage?: Usage;
  /** assistant: the round's cost in USD, when its model has a price. */
  cost_usd?: number;
  finish_reason?: string | null;
  /** assistant: the round ended early (cancel or stream failure); content is what arrived. */
  partial?: boolean;
  /**
   * user: images sent with the prompt; tool: images the tool returned. Kept whole (base64), so a
   * resumed session sends them again to a model that takes images.
   */
  images?: ToolImage[];
  /** tool: which call this answers. */
  tool_call_id?: string;
  name?: string;
  ok?: boolean;
  analysis?: string;
  /** system: a compaction summary; messages before this index are summarized. */
  compact_from?: number;
  /**
   * tool: the nested instruction files (worktree-relative) delivered with this result, so a
   * resumed session does not send them again (src/engine/nested_instructions.ts).
   */
  instructions?: string[];
  /** system: what made the compaction summary: `/compact`, or automatic (and why, how full). */
  compaction?: {
    trigger: "manual" | "auto";
    reason?: "threshold" | "overflow";
    estimated_tokens?: number;
    window?: number;
  };
}

/**
 * The values of the system prompt's environment block that are taken once per session (at its
 * first turn, and again on a later day): the date, the time zone and the repository state.
 */
export interface SessionEnvironment {
  /** When they were taken (ISO). */
  taken_at: string;
  /** The local date then (YYYY-MM-DD) and the time zone it is in. */
  date: string;
  time_zone: string;
  /**
   * The git repository holding the worktree then: its branch and how many files `git status`
   * listed (null with `note` when it could not tell); null when there is none; absent when it
   * was not looked at (`context.git` off).
   */
  git?: { branch: string; changed: number | null; note?: string } | null;
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
  environment?: SessionEnvironment;
}
