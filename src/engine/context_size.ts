import type { ChatRequest } from "../provider/types.ts";
import type { TurnContext } from "./events.ts";

/**
 * What an image counts as: about 1,500 tokens, what the common backends charge a large image
 * (OpenAI's 85 + 170 a tile, Anthropic's width x height / 750 for 1,092 pixels square), never
 * its base64 length.
 */
const IMAGE_CHARS = 6_000;

/**
 * The raw size of one request: about a quarter of its characters (message contents, tool-call
 * arguments and tool schemas), as the REPL's status line estimates a session's context size. The
 * turn calibrates it and adds the window (ContextGauge in auto_compact.ts).
 */
export function requestContext(request: ChatRequest): TurnContext {
  let chars = 0;
  for (const message of request.messages) {
    const content = message.content;
    if (typeof content === "string") chars += content.length;
    else {
      for (const part of content ?? []) {
        chars += part.type === "text" ? part.text.length : IMAGE_CHARS;
      }
    }
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
    }
  }
  for (const schema of request.tools ?? []) chars += JSON.stringify(schema).length;
  return { estimated_tokens: Math.round(chars / 4), window: null };
}
