import type { ChatRequest } from "../provider/types.ts";
import type { TurnContext } from "./events.ts";

/**
 * The raw size of one request: about a quarter of its characters (message contents, tool-call
 * arguments and tool schemas), as the REPL's status line estimates a session's context size. The
 * turn calibrates it and adds the window (ContextGauge in auto_compact.ts).
 */
export function requestContext(request: ChatRequest): TurnContext {
  let chars = 0;
  for (const message of request.messages) {
    chars += message.content?.length ?? 0;
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
    }
  }
  for (const schema of request.tools ?? []) chars += JSON.stringify(schema).length;
  return { estimated_tokens: Math.round(chars / 4), window: null };
}
