/**
 * What a turn has spent and what it may spend: the usage and cost summed over its rounds (a round
 * the backend reported no usage for is estimated), and the run's limits (`limits.max_turns`,
 * `limits.max_tokens_total`, `limits.max_cost`) checked between rounds.
 */
import type { Config } from "../config/schema.ts";
import { costOf, type Price, priceOf } from "../provider/prices.ts";
import type { Usage } from "../provider/types.ts";
import { estimateTokens } from "../provider/usage.ts";
import type { EngineEvent } from "./events.ts";
import { addUsage, type RoundOutcome } from "./round.ts";

/** The limits of one turn; each is off when unset. */
export interface TurnLimits {
  max_turns?: number;
  max_tokens_total?: number;
  max_cost?: number;
}

/** A limit the turn reached: the stop reason (the limit's name) and the message naming it. */
export interface LimitReached {
  reason: "max_turns" | "max_tokens_total" | "max_cost";
  message: string;
}

/** The limits of `config`. */
export function turnLimits(config: Config): TurnLimits {
  return {
    max_turns: config["limits.max_turns"],
    max_tokens_total: config["limits.max_tokens_total"],
    max_cost: config["limits.max_cost"],
  };
}

/** Prompt plus completion tokens of a usage report (its total when it gives only that). */
export function tokensUsed(usage: Usage | null): number {
  if (!usage) return 0;
  const parts = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
  return parts || (usage.total_tokens ?? 0);
}

/** The usage, cost and limits of one turn. */
export class TurnBudget {
  readonly limits: TurnLimits;
  readonly #price: Price | null;
  readonly #ref: string;
  #usage: Usage | null = null;
  #cost: number | null = null;
  #warned = false;

  constructor(
    deps: { config: Config; provider: string; model: string },
    readonly emit: (event: EngineEvent) => void,
  ) {
    this.limits = turnLimits(deps.config);
    this.#price = priceOf(deps.config.prices, deps);
    this.#ref = `${deps.provider}/${deps.model}`;
  }

  /** The usage summed over the rounds so far; null before the first round. */
  get usage(): Usage | null {
    return this.#usage;
  }

  /** USD spent so far; null when the model has no price (a local or unknown model). */
  get cost(): number | null {
    return this.#cost;
  }

  /**
   * Adds one round: the usage the backend reported, or an estimate (about four characters a
   * token: `promptTokens` for the request, the round's output) marked `estimated`. A round that
   * failed before any output (an HTTP error) counts nothing. Returns the round's usage and cost,
   * as its session message keeps them.
   */
  add(
    outcome: Pick<RoundOutcome, "usage" | "content" | "thinking" | "toolCalls" | "completed">,
    promptTokens: number,
  ): { usage?: Usage; cost_usd: number | null } {
    const produced = outcome.completed || outcome.content || outcome.thinking ||
      outcome.toolCalls.length;
    const usage = outcome.usage ?? (produced ? estimate(outcome, promptTokens) : undefined);
    if (!usage) return { cost_usd: null };
    this.#usage = addUsage(this.#usage, usage);
    const cost = this.#price ? costOf(usage, this.#price) : null;
    if (cost !== null) this.#cost = (this.#cost ?? 0) + cost;
    return { usage, cost_usd: cost };
  }

  /**
   * Adds what an automatic compaction's summary request spent (reported or estimated): it counts
   * toward the turn's usage, cost and limits like a round. Returns its cost, or null.
   */
  addSummary(usage: Usage): number | null {
    this.#usage = addUsage(this.#usage, usage);
    const cost = this.#price ? costOf(usage, this.#price) : null;
    if (cost !== null) this.#cost = (this.#cost ?? 0) + cost;
    return cost;
  }

  /** The first limit the turn has reached after `rounds` model rounds, or null. */
  reached(rounds: number): LimitReached | null {
    const { max_turns, max_tokens_total, max_cost } = this.limits;
    if (max_turns !== undefined && rounds >= max_turns) {
      return {
        reason: "max_turns",
        message: `Stopped at the max_turns limit: ${rounds} model rounds (limit ${max_turns})`,
      };
    }
    const tokens = tokensUsed(this.#usage);
    if (max_tokens_total !== undefined && tokens >= max_tokens_total) {
      const estimated = this.#usage?.estimated ? " (estimated)" : "";
      return {
        reason: "max_tokens_total",
        message: `Stopped at the max_tokens_total limit: ${tokens} tokens used${estimated} ` +
          `(limit ${max_tokens_total})`,
      };
    }
    if (max_cost !== undefined && this.#price === null && !this.#warned) {
      this.#warned = true;
      this.emit({
        type: "warning",
        message: `limits.max_cost is not applied: svc has no price for ${this.#ref}; ` +
          `add it to config prices ("${this.#ref}": {"input": ..., "output": ...})`,
      });
    }
    if (max_cost !== undefined && this.#cost !== null && this.#cost >= max_cost) {
      return {
        reason: "max_cost",
        message: `Stopped at the max_cost limit: $${usd(this.#cost)} spent (limit $${max_cost})`,
      };
    }
    return null;
  }
}

/** A round's usage when the backend reported none. */
function estimate(
  outcome: Pick<RoundOutcome, "content" | "thinking" | "toolCalls">,
  promptTokens: number,
): Usage {
  const chars = outcome.content.length + outcome.thinking.length +
    outcome.toolCalls.reduce((n, call) => n + call.function.arguments.length, 0);
  const completion = estimateTokens(chars);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    estimated: true,
  };
}

/** Dollars with enough digits for a small run's cost. */
export function usd(value: number): string {
  return value >= 1 ? value.toFixed(2) : value.toFixed(4);
}
