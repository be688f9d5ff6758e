/**
 * Recognising a request the backend refused as longer than the model's context window, however
 * the server words it (docs/sessions.md#automatic-compaction):
 *
 * - llama.cpp's server: `{"error":{"code":400,"message":"request (4476 tokens) exceeds the
 *   available context size (4096 tokens), try increasing it","type":"exceed_context_size_error",
 *   "n_prompt_tokens":4476,"n_ctx":4096}}`; older builds say "the request exceeds the available
 *   context size, try increasing it".
 * - Ollama: "input length exceeds the context length" (older builds: "...exceeds maximum context
 *   length"); builds that refuse instead of truncating pass llama.cpp's error on, as above.
 * - vLLM: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens
 *   (...)" and, for the prompt alone, "The prompt (total length 5000) is too long to fit into the
 *   model (context length 4096)" / "...is longer than the model's maximum context length of 4096
 *   tokens".
 * - OpenAI: code `context_length_exceeded`, "This model's maximum context length is 8192 tokens.
 *   However, your messages resulted in 8227 tokens. Please reduce the length of the messages."
 */

/** The error code a stream event carries when the backend refused the request as too long. */
export const CONTEXT_OVERFLOW = "context_overflow";

const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /exceed_context_size_error/,
  /context_length_exceeded/,
  /exceeds? the available context size/i,
  /input length exceeds (the |maximum )?context length/i,
  /maximum context length is \d+ tokens/i,
  /longer than the model's maximum context length/i,
  /too long to fit into the model/i,
  /prompt is too long/i,
];

/** Where the window is named: n_ctx, "available context size (N tokens)", "... is N tokens". */
const WINDOW_PATTERNS: readonly RegExp[] = [
  /"n_ctx"\s*:\s*(\d+)/,
  /available context size \((\d+) tokens\)/i,
  /maximum context length (?:is|of) (\d+)/i,
  /\(context length (\d+)\)/i,
];

/** Whether an error body or message says the request was longer than the context window. */
export function isContextOverflow(text: string): boolean {
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

/** The window an overflow error names, in tokens; null when it names none. */
export function overflowWindow(text: string): number | null {
  for (const pattern of WINDOW_PATTERNS) {
    const match = pattern.exec(text);
    const n = match ? Number(match[1]) : NaN;
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  return null;
}
