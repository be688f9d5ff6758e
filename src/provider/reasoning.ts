/** The SPEC reasoning mapping: extra payload fields per provider for the `reasoning` key. */
import type { Reasoning } from "./types.ts";

const BUDGETS: Record<"low" | "medium" | "high", number> = { low: 1024, medium: 2048, high: 4096 };
/** The smallest thinking budget anthropic accepts. */
const MIN_BUDGET = BUDGETS.low;

type Level = "off" | "on" | "low" | "medium" | "high";

function level(value: Reasoning | undefined): Level {
  if (value === false || value === "off") return "off";
  if (value === "low" || value === "medium" || value === "high") return value;
  return "on"; // true, "on", "auto" and unset
}

/**
 * Payload fields that request (or suppress) reasoning for `provider`; may be empty. A thinking
 * budget stays strictly below `maxTokens` (when set), as anthropic requires; when even the
 * smallest budget does not fit, thinking is disabled.
 */
export function reasoningFields(
  provider: string,
  value: Reasoning | undefined,
  maxTokens?: number,
): Record<string, unknown> {
  const l = level(value);
  switch (provider) {
    case "openai":
      if (l === "off") return {};
      return { reasoning_effort: l === "on" ? "medium" : l };
    case "anthropic": {
      if (l === "off") return { thinking: { type: "disabled" } };
      const mapped = BUDGETS[l === "on" ? "medium" : l];
      const budget = maxTokens ? Math.min(mapped, maxTokens - 1) : mapped;
      if (budget < MIN_BUDGET) return { thinking: { type: "disabled" } };
      return { thinking: { type: "enabled", budget_tokens: budget } };
    }
    case "dashscope":
      if (l === "off") return { enable_thinking: false };
      if (l === "on") return { enable_thinking: true };
      return { enable_thinking: true, chat_template_kwargs: { thinking: true } };
    default:
      return l === "off" || l === "on" ? {} : { reasoning_effort: l };
  }
}
