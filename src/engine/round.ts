import type {
  ChatClient,
  ChatRequest,
  ChatToolCall,
  ProviderFields,
  Usage,
} from "../provider/types.ts";
import type { EngineEvent, TurnError } from "./events.ts";
import { ThinkSplitter } from "./think_split.ts";

/** What one streamed round produced, complete or not. */
export interface RoundOutcome {
  content: string;
  thinking: string;
  toolCalls: ChatToolCall[];
  /** Fields the provider sent that svc keeps for it (stored with the assistant message). */
  providerFields?: ProviderFields;
  finishReason: string | null;
  usage?: Usage;
  /** The round's cost in USD (TurnBudget); null when the model has no price. */
  cost_usd?: number | null;
  error?: TurnError;
  /** The stream finished with a completion event (not cut, failed or cancelled). */
  completed: boolean;
}

/**
 * Streams one request, forwarding thinking and tokens as engine events (with `<think>` blocks
 * split out of the content) and collecting everything else.
 */
export async function streamRound(
  client: ChatClient,
  request: ChatRequest,
  { signal, emit }: { signal: AbortSignal; emit: (event: EngineEvent) => void },
): Promise<RoundOutcome> {
  const out: RoundOutcome = {
    content: "",
    thinking: "",
    toolCalls: [],
    finishReason: null,
    completed: false,
  };
  const splitter = new ThinkSplitter();
  const take = (part: { text: string; thinking: string }) => {
    if (part.thinking) {
      out.thinking += part.thinking;
      emit({ type: "thinking", content: part.thinking });
    }
    if (part.text) {
      out.content += part.text;
      emit({ type: "token", content: part.text });
    }
  };
  for await (const event of client.chat(request, signal)) {
    switch (event.type) {
      case "thinking":
        out.thinking += event.content;
        emit(event);
        break;
      case "token":
        take(splitter.push(event.content));
        break;
      case "tool_calls":
        out.toolCalls.push(...event.tool_calls);
        break;
      case "provider_fields":
        out.providerFields = event.fields;
        break;
      case "status":
        emit(event);
        break;
      case "error":
        out.error = { code: event.code, message: event.message, at: new Date().toISOString() };
        emit(event);
        break;
      case "done":
        out.finishReason = event.reason;
        out.usage = event.usage;
        out.completed = !out.error && event.reason !== "cancelled" && event.reason !== "error";
        break;
    }
  }
  take(splitter.flush());
  // What is kept (session, result, tool arguments) never holds the key, even if the backend
  // echoed it; the streamed events were shown as they came.
  out.content = client.redact(out.content);
  out.thinking = client.redact(out.thinking);
  out.toolCalls = out.toolCalls.map((call) => ({
    ...call,
    function: { ...call.function, arguments: client.redact(call.function.arguments) },
  }));
  if (out.providerFields) {
    out.providerFields = JSON.parse(client.redact(JSON.stringify(out.providerFields)));
  }
  return out;
}

/** Adds token counts of two usage reports; the sum is `estimated` when either is. */
export function addUsage(total: Usage | null, more: Usage | undefined): Usage | null {
  if (!more) return total;
  const sum: Usage = { ...(total ?? {}) };
  for (const [key, value] of Object.entries(more)) {
    if (typeof value === "number") sum[key] = ((sum[key] as number | undefined) ?? 0) + value;
  }
  if (more.estimated) sum.estimated = true;
  return sum;
}
