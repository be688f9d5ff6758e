// deno-lint-ignore-file no-explicit-any -- provider chunks are untyped JSON, checked field by field
/** Folds the `data:` payloads of one chat-completions SSE stream into events and final state. */
import type { ChatToolCall, ProviderFields, StreamEvent, Usage } from "./types.ts";
import { normalizeUsage } from "./usage.ts";
import { errorMessageOf } from "./error_shape.ts";
import { readContent } from "./content_parts.ts";
import { ToolCallAssembly } from "./tool_call_assembly.ts";
import { hasFields, mergeFields, unknownMessageFields } from "./provider_fields.ts";

/** Longest stray (non-JSON, non-SSE) text kept to explain a stream that then ends early. */
const MAX_STRAY = 2000;

/** State of one streamed response; `handle` each SSE data payload, collect the events it yields. */
export class ChunkAccumulator {
  /** True after a finish_reason or `[DONE]`. */
  completed = false;
  /** True after `[DONE]`: nothing more will come. */
  doneSeen = false;
  /** True once any content, reasoning or tool-call delta arrived. */
  sawContent = false;
  finish: string | null = null;
  usage?: Usage;
  /** Set when the provider sent an error inside the stream (any shape, see error_shape.ts). */
  errorMessage?: string;
  /**
   * The last text the server sent that is neither JSON nor SSE (`data: upstream timeout`, a plain
   * `Internal Server Error` line): the server's own words when the stream then ends early.
   */
  strayText?: string;
  /** Content parts of unknown types that were ignored, by type. */
  readonly ignoredParts = new Map<string, number>();
  /**
   * Counts payloads that carried something: text, reasoning, a tool-call part, a finish reason,
   * usage, an error or `[DONE]`. Keep-alive comments never reach `handle`, and empty or role-only
   * deltas do not count, so they cannot keep a stalled stream alive.
   */
  progress = 0;
  #calls = new ToolCallAssembly();
  #messageFields: Record<string, unknown> = {};

  /**
   * Handles one SSE event's data; returns the events it produces. `event` is the SSE event name:
   * `error` makes the data the server's error message, JSON or not. Other invalid JSON is skipped
   * (and remembered as stray text).
   */
  handle(data: string, event?: string): StreamEvent[] {
    if (data.trim() === "[DONE]") {
      this.completed = this.doneSeen = true;
      this.progress++;
      return [];
    }
    let json: any;
    try {
      json = JSON.parse(data);
    } catch {
      if (event === "error") this.#fail(data.trim() || "the server sent an error event");
      else this.noteStray(data);
      return [];
    }
    const error = errorMessageOf(json) ??
      (event === "error" ? String(json?.message ?? JSON.stringify(json)) : undefined);
    if (error !== undefined) {
      this.#fail(error);
      return [];
    }
    // Groq reports usage inside its own `x_groq` object (also) on the last chunk.
    const usage = normalizeUsage(json?.usage ?? json?.x_groq?.usage);
    if (usage) {
      this.usage = usage;
      this.progress++;
    }
    const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
    if (!choice) return [];
    // A server that ignores `stream: true` answers one JSON completion: its message is the delta.
    const delta = choice.delta ?? choice.message ?? {};
    const events = this.#readDelta(delta);
    if (choice.finish_reason) {
      this.progress++;
      this.finish = String(choice.finish_reason);
      this.completed = true;
    }
    return events;
  }

  /** Remembers text that is not part of the protocol (bounded); see `strayText`. */
  noteStray(text: string): void {
    const trimmed = text.trim();
    if (trimmed) this.strayText = trimmed.slice(0, MAX_STRAY);
  }

  #fail(message: string): void {
    this.progress++;
    this.errorMessage = message;
  }

  #readDelta(delta: any): StreamEvent[] {
    if (!delta || typeof delta !== "object") return [];
    const events: StreamEvent[] = [];
    const parts = readContent(delta.content);
    for (const type of parts.ignored) {
      this.ignoredParts.set(type, (this.ignoredParts.get(type) ?? 0) + 1);
    }
    const field = delta.reasoning_content ?? delta.reasoning;
    const thinking = (typeof field === "string" ? field : "") + parts.thinking;
    if (thinking) events.push({ type: "thinking", content: thinking });
    if (parts.text) events.push({ type: "token", content: parts.text });
    if (events.length) {
      this.sawContent = true;
      this.progress++;
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls) {
        this.sawContent = true;
        this.progress++;
        this.#calls.add(part);
      }
    }
    mergeFields(this.#messageFields, unknownMessageFields(delta));
    return events;
  }

  /** The reassembled tool calls in the order they started; empty arguments become `{}`. */
  toolCalls(): ChatToolCall[] {
    return this.#calls.assemble().map((c) => c.call);
  }

  /** The calls whose arguments arrived as complete JSON: what a broken stream still delivered. */
  completeToolCalls(): ChatToolCall[] {
    return this.#calls.assemble(isJson).map((c) => c.call);
  }

  /** The fields kept for the provider at `origin` (provider_fields.ts); undefined when none. */
  providerFields(origin: string): ProviderFields | undefined {
    const calls: Record<string, Record<string, unknown>> = {};
    for (const { call, extra } of this.#calls.assemble()) {
      if (Object.keys(extra).length) calls[call.id] = extra;
    }
    const fields = {
      ...(Object.keys(this.#messageFields).length ? { message: this.#messageFields } : {}),
      ...(Object.keys(calls).length ? { tool_calls: calls } : {}),
    };
    return hasFields(fields) ? { origin, ...fields } : undefined;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
