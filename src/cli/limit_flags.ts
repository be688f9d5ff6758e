/**
 * The limit flags of `svc run`: `--max-turns <n>` (model rounds of the turn), `--max-tokens-total
 * <n>` (prompt plus completion tokens summed over the turn) and `--max-cost <USD>`; each over its
 * `limits.*` config key. Also the `--verbose` line that reports what the turn used.
 */
import { MAX_ROUNDS, type TurnLimits, type TurnResult, usd } from "../runtime/mod.ts";
import { dollars, wholeNumber } from "./flags.ts";
import { UsageError } from "./usage.ts";

/** The flags this reads (commander's names). */
export interface LimitFlags {
  maxTurns?: string;
  maxTokensTotal?: string;
  maxCost?: string;
}

/** The limits the flags set (`limits` absent when none is given), or a usage problem. */
export function limitsOf(flags: LimitFlags): { limits?: TurnLimits } | { problem: string } {
  const limits: TurnLimits = {};
  try {
    if (flags.maxTurns !== undefined) {
      limits.max_turns = wholeNumber(flags.maxTurns, {
        flag: "--max-turns",
        min: 1,
        max: MAX_ROUNDS,
      });
    }
    if (flags.maxTokensTotal !== undefined) {
      limits.max_tokens_total = wholeNumber(flags.maxTokensTotal, {
        flag: "--max-tokens-total",
        min: 1,
      });
    }
    if (flags.maxCost !== undefined) {
      limits.max_cost = dollars(flags.maxCost, { flag: "--max-cost" });
    }
  } catch (err) {
    if (err instanceof UsageError) return { problem: err.message };
    throw err;
  }
  return Object.keys(limits).length ? { limits } : {};
}

/**
 * What `svc run --verbose` prints on stderr when the turn ends: tokens in (of them cached), out
 * (of them reasoning), and the cost; `~` marks an estimate.
 */
export function usageLine(result: Pick<TurnResult, "usage" | "cost_usd">): string {
  const usage = result.usage;
  if (!usage) return "usage: none reported";
  const mark = usage.estimated ? "~" : "";
  const cached = usage.cached_tokens ? ` (${usage.cached_tokens} cached)` : "";
  const reasoning = usage.reasoning_tokens ? ` (${usage.reasoning_tokens} reasoning)` : "";
  const cost = result.cost_usd === null
    ? "unknown (no price for this model)"
    : `$${usd(result.cost_usd)}`;
  return `usage: ${mark}${usage.prompt_tokens ?? 0} tokens in${cached}, ${mark}${
    usage.completion_tokens ?? 0
  } out${reasoning}${usage.estimated ? " (estimated)" : ""}; cost ${cost}`;
}
