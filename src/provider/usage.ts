// deno-lint-ignore-file no-explicit-any -- a backend's usage object is untyped JSON
/** A backend's `usage` figures as svc keeps them: the OpenAI names, with cached and reasoning. */
import type { Usage } from "./types.ts";

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The usage a backend reported, as svc keeps it: its own top-level counts (`prompt_tokens`,
 * `completion_tokens`, `total_tokens`, ...) as they came, plus `cached_tokens`
 * (`prompt_tokens_details.cached_tokens`, or Anthropic's `cache_read_input_tokens`) and
 * `reasoning_tokens` (`completion_tokens_details.reasoning_tokens`) when reported. A backend that
 * speaks Anthropic's names only (`input_tokens`, `output_tokens`) gets the OpenAI names too, its
 * prompt counting the cache reads and writes as OpenAI's does. Undefined when nothing is a count.
 */
export function normalizeUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const source = raw as Record<string, any>;
  const usage: Usage = {};
  for (const [key, value] of Object.entries(source)) {
    if (num(value) !== undefined) usage[key] = value;
  }
  const cacheRead = num(source.cache_read_input_tokens);
  if (usage.prompt_tokens === undefined && num(source.input_tokens) !== undefined) {
    usage.prompt_tokens = source.input_tokens + (cacheRead ?? 0) +
      (num(source.cache_creation_input_tokens) ?? 0);
  }
  if (usage.completion_tokens === undefined && num(source.output_tokens) !== undefined) {
    usage.completion_tokens = source.output_tokens;
  }
  const cached = num(source.prompt_tokens_details?.cached_tokens) ?? cacheRead;
  if (cached !== undefined) usage.cached_tokens = cached;
  const reasoning = num(source.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return Object.keys(usage).length ? usage : undefined;
}

/** A token count from characters: about four characters a token, as the REPL's context figure. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
