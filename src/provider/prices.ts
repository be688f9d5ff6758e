/**
 * What a turn costs: USD per million tokens per `provider/model`, from config `prices` over a
 * bundled table, and the cost of a usage report.
 */
import type { Usage } from "./types.ts";

/** USD per million tokens; `cached_input` (prompt-cache reads) defaults to `input`. */
export interface Price {
  input: number;
  output: number;
  cached_input?: number;
}

/** When the bundled table was checked against its source, and the source. */
export const BUNDLED_PRICES_DATE = "2026-11-26";
export const BUNDLED_PRICES_SOURCE = "https://docs.anthropic.com/en/docs/about-claude/pricing";

/**
 * The bundled prices: only rows svc's authors could read on the provider's own pricing page
 * (BUNDLED_PRICES_SOURCE, checked BUNDLED_PRICES_DATE; the copy read lists Claude Opus 4.1 as the
 * newest model). Base input, cache hits and output; cache writes and the long-context rate of
 * prompts over 200K tokens are not modelled. Every other model (OpenAI, Google, OpenRouter, newer
 * Claude models, local servers) has no bundled price: set it in config `prices`.
 */
export const BUNDLED_PRICES: Readonly<Record<string, Price>> = {
  "anthropic/claude-opus-4-1": { input: 15, cached_input: 1.5, output: 75 },
  "anthropic/claude-opus-4": { input: 15, cached_input: 1.5, output: 75 },
  "anthropic/claude-opus-4-0": { input: 15, cached_input: 1.5, output: 75 },
  "anthropic/claude-sonnet-4": { input: 3, cached_input: 0.3, output: 15 },
  "anthropic/claude-sonnet-4-0": { input: 3, cached_input: 0.3, output: 15 },
  "anthropic/claude-3-7-sonnet": { input: 3, cached_input: 0.3, output: 15 },
  "anthropic/claude-3-5-haiku": { input: 0.8, cached_input: 0.08, output: 4 },
  "anthropic/claude-3-haiku": { input: 0.25, cached_input: 0.03, output: 1.25 },
};

/**
 * The price of `model` on `provider`: config `prices` (`"<provider>/<model>"`) first, then the
 * bundled table, where a dated or `-latest` id (`claude-sonnet-4-20250514`) takes its base id's
 * row. Null when neither knows it: a local or unknown model has no cost, not a cost of 0.
 */
export function priceOf(
  prices: Readonly<Record<string, Price>>,
  { provider, model }: { provider: string; model: string },
): Price | null {
  const ref = `${provider}/${model}`;
  if (Object.hasOwn(prices, ref)) return prices[ref];
  const base = ref.replace(/-(\d{8}|latest)$/, "");
  for (const key of [ref, base]) {
    if (Object.hasOwn(BUNDLED_PRICES, key)) return BUNDLED_PRICES[key];
  }
  return null;
}

/**
 * The USD cost of `usage` at `price`: prompt tokens not read from the cache at `input`, cached
 * ones at `cached_input`, completion tokens (reasoning included) at `output`.
 */
export function costOf(usage: Usage, price: Price): number {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(usage.cached_tokens ?? 0, prompt);
  const completion = usage.completion_tokens ?? 0;
  return ((prompt - cached) * price.input + cached * (price.cached_input ?? price.input) +
    completion * price.output) / 1_000_000;
}
