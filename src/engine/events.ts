import type { ChatToolCall, Usage } from "../provider/types.ts";
import type { Action, TurnError, TurnStatus } from "../shared/types.ts";
export type { TurnError, TurnStatus };

/**
 * The version of the event schema: the engine's events, the TurnResult and the lines of
 * `svc run --output stream-json` (docs/schema/stream-json.v1.json). Bumped when a key is renamed
 * or removed, or its meaning changes; added keys keep the version.
 */
export const EVENT_SCHEMA_VERSION = 1;

/**
 * Why a turn stopped. `answered`, `empty` and `max_tokens` (one answer cut at the output cap) end
 * a turn the model finished; `max_turns`, `max_tokens_total` and `max_cost` are the run's limits;
 * `round_limit` is svc's own cap on rounds; `schema_invalid` a structured answer that never
 * validated; `stream_error` a failed request; `session_write` a session that could not be
 * written; `setup_error` a run that failed before its turn; `cancelled` an abort.
 */
export type TurnReason =
  | "answered"
  | "empty"
  | "max_tokens"
  | "max_turns"
  | "max_tokens_total"
  | "max_cost"
  | "round_limit"
  | "schema_invalid"
  | "stream_error"
  | "session_write"
  | "setup_error"
  | "cancelled";

/** The context of a turn's last request: its estimated size and the model's window. */
export interface TurnContext {
  /**
   * About a quarter of the request's characters (messages and tool schemas), scaled by the
   * session's ratio of the backend's reported `prompt_tokens` to that estimate (auto_compact.ts).
   */
  estimated_tokens: number;
  /** The model's context window in tokens (config, the backend, else 32,768); null before a round. */
  window: number | null;
}

/** A compaction of the context (`/compact`, or automatic before a round or after an overflow). */
export type CompactionEvent = {
  type: "compaction";
  trigger: "manual" | "auto";
  /** auto: the request would pass `compaction.threshold`, or the backend refused it as too long. */
  reason?: "threshold" | "overflow";
  /** Messages summarized, and kept verbatim. */
  summarized: number;
  kept: number;
  /** The context before the compaction (auto only). */
  estimated_tokens?: number;
  window?: number;
};

/** One executed (or refused) tool call of a turn. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  decision: Action | "cancelled";
  ok: boolean;
  duration: number;
  /** An ask-gated call that was refused: which tool, why, and how to allow it. */
  refusal?: string;
}

/** The structured result of every turn. */
export interface TurnResult {
  content: string;
  thinking: string;
  tool_calls: ToolCallRecord[];
  errors: TurnError[];
  /** Seconds. */
  duration: number;
  usage: Usage | null;
  /**
   * What the turn cost in USD at the price of its model (config `prices`, else the bundled table,
   * src/provider/prices.ts); null when svc has no price for it (a local or unknown model).
   */
  cost_usd: number | null;
  model: string;
  provider: string;
  session: string;
  status: TurnStatus;
  /** Why the turn stopped. */
  reason: TurnReason;
  /** Model requests made (streamed rounds). */
  rounds: number;
  /** The last request's context. */
  context: TurnContext;
  /** The answer as a JSON value valid against the turn's JSON Schema (structured.ts). */
  structured_output?: unknown;
}

/** A tool call of a completed assistant message, by the tool's canonical name. */
export interface AssistantToolCall {
  id: string;
  name: string;
  /** The arguments as the model sent them (JSON text). */
  arguments: string;
}

/** Events emitted by the engine during a turn; front-ends render them. */
export type EngineEvent =
  | { type: "thinking"; content: string }
  | { type: "token"; content: string }
  /** A round's assistant message is complete (before its tool calls run). */
  | {
    type: "assistant_message";
    /** 1-based round of the turn. */
    round: number;
    content: string;
    thinking: string;
    tool_calls: AssistantToolCall[];
    usage?: Usage;
    finish_reason: string | null;
  }
  | { type: "tool_start"; call: ChatToolCall; name: string; args: Record<string, unknown> }
  | {
    type: "tool_end";
    id: string;
    name: string;
    ok: boolean;
    content: string;
    status?: string;
    decision: Action | "cancelled";
    /** Set when an ask-gated call was refused (see ToolCallRecord.refusal). */
    refusal?: string;
  }
  | { type: "warning"; message: string }
  | { type: "error"; code: string; message: string }
  | { type: "status"; message: string }
  | { type: "session"; name: string }
  | CompactionEvent
  | { type: "done"; result: TurnResult };
