// deno-lint-ignore-file no-explicit-any -- provider chunks are untyped JSON, checked field by field
/** Folds the `data:` payloads of one chat-completions SSE stream into events and final state. */
import type { ChatToolCall, StreamEvent, Usage } from "./types.ts";
import { normalizeUsage } from "./usage.ts";

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

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
  /** Set when the provider sent an error object inside the stream. */
  errorMessage?: string;
  /**
   * Counts payloads that carried something: text, reasoning, a tool-call part, a finish reason,
   * usage, an error or `[DONE]`. Keep-alive comments never reach `handle`, and empty or role-only
   * deltas do not count, so they cannot keep a stalled stream alive.
   */
  progress = 0;
  #calls = new Map<number, PartialCall>();

  /** Handles one SSE data payload; returns the events it produces (invalid JSON is skipped). */
  handle(data: string): StreamEvent[] {
    if (data.trim() === "[DONE]") {
      this.completed = this.doneSeen = true;
      this.progress++;
      return [];
    }
    let json: any;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    if (json?.error) {
      this.progress++;
      const e = json.error;
      this.errorMessage = typeof e === "string" ? e : String(e.message ?? JSON.stringify(e));
      return [];
    }
    const usage = normalizeUsage(json?.usage);
    if (usage) {
      this.usage = usage;
      this.progress++;
    }
    const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
    if (!choice) return [];
    const events: StreamEvent[] = [];
    // A server that ignores `stream: true` answers one JSON completion: its message is the delta.
    const delta = choice.delta ?? choice.message ?? {};
    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (typeof thinking === "string" && thinking) {
      this.sawContent = true;
      this.progress++;
      events.push({ type: "thinking", content: thinking });
    }
    if (typeof delta.content === "string" && delta.content) {
      this.sawContent = true;
      this.progress++;
      events.push({ type: "token", content: delta.content });
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((tc: any, position: number) => this.#mergeCall(tc, position));
    }
    if (choice.finish_reason) {
      this.progress++;
      this.finish = String(choice.finish_reason);
      this.completed = true;
    }
    return events;
  }

  /** The reassembled tool calls in index order; empty arguments become `{}`. */
  toolCalls(): ChatToolCall[] {
    return this.#assemble(() => true);
  }

  /** The calls whose arguments arrived as complete JSON: what a broken stream still delivered. */
  completeToolCalls(): ChatToolCall[] {
    return this.#assemble((c) => isJson(c.arguments));
  }

  #assemble(keep: (call: PartialCall) => boolean): ChatToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, c]) => c.name && keep(c))
      .map(([index, c]) => ({
        id: c.id || `call_${index}`,
        type: "function" as const,
        function: { name: c.name, arguments: c.arguments.trim() ? c.arguments : "{}" },
      }));
  }

  #mergeCall(tc: any, position: number): void {
    this.sawContent = true;
    this.progress++;
    const index = typeof tc?.index === "number" ? tc.index : position;
    const call = this.#calls.get(index) ?? { id: "", name: "", arguments: "" };
    if (typeof tc?.id === "string" && tc.id && !call.id) call.id = tc.id;
    const fn = tc?.function ?? {};
    if (typeof fn.name === "string" && fn.name && !call.name) call.name = fn.name;
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    else if (fn.arguments && typeof fn.arguments === "object") {
      call.arguments += JSON.stringify(fn.arguments);
    }
    this.#calls.set(index, call);
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
