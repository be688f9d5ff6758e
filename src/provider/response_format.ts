/**
 * Which backends take a structured-output request (`response_format` of type `json_schema`) and
 * when. svc validates every structured answer itself, so a backend that ignores the field only
 * costs a repair round; one that refuses it, or constrains tool calls away, would cost the turn.
 */

/**
 * `always`: sent on every round, tools offered or not (OpenAI documents both together, and
 * OpenRouter passes it to the model's provider). `without_tools`: sent only on rounds that offer
 * no tools, because llama.cpp's server and vLLM constrain the whole output to the schema, which
 * leaves no room for a tool call. `never`: the schema goes into the prompt only (Anthropic's
 * OpenAI-compatible endpoint ignores `response_format`; DashScope and OpenCode Zen document
 * `json_object` only, or nothing; a plugin provider is not known).
 */
export type ResponseFormatSupport = "always" | "without_tools" | "never";

const SUPPORT: Readonly<Record<string, ResponseFormatSupport>> = {
  openai: "always",
  openrouter: "always",
  // Local servers (llama.cpp, vLLM, Ollama, LM Studio) connect as generic.
  generic: "without_tools",
};

/** How the provider `id` takes `response_format` json_schema. */
export function responseFormatSupport(id: string): ResponseFormatSupport {
  return SUPPORT[id] ?? "never";
}

/** The `response_format` field of a chat-completions request. */
export interface ResponseFormat {
  type: "json_schema";
  json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
}
