/**
 * A scripted backend with a context window: a request whose messages hold more than `window`
 * tokens (a quarter of their characters) is refused the way a real server words it.
 */
import type { Reply } from "./fake_provider.ts";

/** The servers whose context-overflow errors svc recognises. */
export type OverflowWording = "llama.cpp" | "ollama" | "vllm" | "openai";

export const WORDINGS: readonly OverflowWording[] = ["llama.cpp", "ollama", "vllm", "openai"];

/** The HTTP error `server` answers a request of `tokens` over a window of `window` with. */
export function overflowReply(server: OverflowWording, tokens: number, window: number): Reply {
  const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });
  switch (server) {
    case "llama.cpp":
      return json(400, {
        error: {
          code: 400,
          message:
            `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`,
          type: "exceed_context_size_error",
          n_prompt_tokens: tokens,
          n_ctx: window,
        },
      });
    case "ollama":
      // Ollama answers runner errors with 500; svc must not retry it as a server error.
      return json(500, {
        error: {
          message: "input length exceeds the context length",
          type: "api_error",
          param: null,
          code: null,
        },
      });
    case "vllm":
      return json(400, {
        object: "error",
        message:
          `This model's maximum context length is ${window} tokens. However, you requested ` +
          `${tokens} tokens (${tokens} in the messages, 0 in the completion). Please reduce the ` +
          "length of the messages or completion.",
        type: "BadRequestError",
        param: null,
        code: 400,
      });
    case "openai":
      return json(400, {
        error: {
          message: `This model's maximum context length is ${window} tokens. However, your ` +
            `messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      });
  }
}

/** A request's size as the backend counts it: a quarter of its messages' characters. */
// deno-lint-ignore no-explicit-any
export function requestTokens(body: any): number {
  let chars = 0;
  for (const m of body?.messages ?? []) {
    chars += (m.content ?? "").length;
    for (const call of m.tool_calls ?? []) chars += call.function.arguments.length;
  }
  for (const tool of body?.tools ?? []) chars += JSON.stringify(tool).length;
  return Math.round(chars / 4);
}

/**
 * A script answering every request that fits `window` (summaries `SUMMARY`, others `answer`, of
 * `answerChars` characters) and refusing every one that does not, as `server` does.
 */
export function windowedScript(
  server: OverflowWording,
  options: { window: number; answerChars?: number },
  // deno-lint-ignore no-explicit-any
): (body: any) => Reply {
  const filler = "x".repeat(options.answerChars ?? 400);
  return (body) => {
    const tokens = requestTokens(body);
    if (tokens > options.window) return overflowReply(server, tokens, options.window);
    if (body?.stream === false) return { text: "SUMMARY of the earlier turns" };
    return { text: `answer ${filler}` };
  };
}
