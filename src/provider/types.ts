/** Wire types of the chat-completions protocol and the provider stream events. */

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A part of a user message's content: text, or an image as a `data:` URL. */
export type UserContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | UserContentPart[] }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: ChatToolCall[];
    reasoning_content?: string;
    /** Kept for the provider that sent them; buildPayload sends or drops them, never as is. */
    provider_fields?: ProviderFields;
  }
  | { role: "tool"; tool_call_id: string; content: string; name?: string };

/**
 * Fields of an answer that svc does not read but the provider may want back on the next request
 * (Gemini's `extra_content.google.thought_signature` on a tool call, OpenRouter's
 * `reasoning_details`): kept with the assistant message and re-sent unchanged, but only to the
 * provider that sent them (`origin`); another provider never sees them.
 */
export interface ProviderFields {
  /** Who sent them: `<provider id> <base address>` (originOf). */
  origin: string;
  /** Unknown fields of the assistant message. */
  message?: Record<string, unknown>;
  /** Unknown fields of each tool call, by call id. */
  tool_calls?: Record<string, Record<string, unknown>>;
}

import type { ToolSchema } from "../tool/types.ts";
import type { ResponseFormat } from "./response_format.ts";
export type { ToolSchema };

/**
 * Token counts as the provider reports them (OpenAI field names; normalizeUsage in usage.ts),
 * summed over a turn's rounds in a TurnResult.
 */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** Of prompt_tokens, read from the provider's prompt cache. */
  cached_tokens?: number;
  /** Of completion_tokens, spent on reasoning. */
  reasoning_tokens?: number;
  /** Some figure is svc's estimate (about 4 characters a token): a round reported no usage. */
  estimated?: boolean;
  [key: string]: unknown;
}

/** Values of the `reasoning` config key. */
export type Reasoning = boolean | "off" | "on" | "auto" | "low" | "medium" | "high";

/**
 * Events of one streamed chat call. A stream never throws once started: every failure is an
 * `error` event, and every stream ends with exactly one `done` event (reason `error` after a
 * failure, `cancelled` after an abort).
 */
export type StreamEvent =
  | { type: "thinking"; content: string }
  | { type: "token"; content: string }
  | { type: "tool_calls"; tool_calls: ChatToolCall[] }
  /** Sent before `done` when the answer carried fields svc keeps for its provider. */
  | { type: "provider_fields"; fields: ProviderFields }
  | { type: "error"; code: string; message: string }
  | { type: "status"; message: string }
  | { type: "done"; reason: string | null; usage?: Usage };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  temperature?: number;
  /** 0 or undefined omits max_tokens from the payload. */
  max_tokens?: number;
  reasoning?: Reasoning;
  /** A structured-output request (src/provider/response_format.ts); sent as it is. */
  response_format?: ResponseFormat;
}

export interface NonStreamingResult {
  content: string;
  usage?: Usage;
  /** Set when the call failed; content is then empty. */
  error?: string;
}

/** One connection to a chat-completions backend. */
export interface ChatClient {
  readonly provider: string;
  readonly baseUrl: string;
  /** Streams one round; must not throw. */
  chat(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent>;
  /** Bounded auxiliary call (compaction, analysis, lead consultation); must not throw. */
  chatNonStreaming(
    request: ChatRequest,
    signal?: AbortSignal,
  ): Promise<NonStreamingResult>;
  /** `GET {base}/v1/models`; throws an Error with a readable message on failure. */
  listModels(signal?: AbortSignal): Promise<string[]>;
  /**
   * The context window the backend reports for `model` (model_facts.ts), probed once per
   * process; null when it reports none. Optional: a client without it reports none.
   */
  contextWindow?(model: string): Promise<number | null>;
  /**
   * Whether the backend reports that `model` takes images (model_facts.ts), probed once per
   * process; null when it does not say.
   */
  acceptsImages?(model: string): Promise<boolean | null>;
  /**
   * `text` with this connection's API key masked: what the engine stores of a streamed answer
   * goes through it, so a backend that echoes the Authorization header cannot put the key in a
   * session. Errors and non-streaming answers come masked already.
   */
  redact(text: string): string;
}
