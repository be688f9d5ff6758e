/** The SPEC reasoning mapping: extra payload fields per provider for the `reasoning` key. */
import type { Reasoning } from "./types.ts";

const BUDGETS: Record<"low" | "medium" | "high", number> = { low: 1024, medium: 2048, high: 4096 };

type Level = "off" | "on" | "low" | "medium" | "high";

function level(value: Reasoning | undefined): Level {
  if (value === false || value === "off") return "off";
  if (value === "low" || value === "medium" || value === "high") return value;
  return "on"; // true, "on", "auto" and unset
}

/** Payload fields that request (or suppress) reasoning for `provider`; may be empty. */
export function reasoningFields(
  provider: string,
  value: Reasoning | undefined,
): Record<string, unknown> {
  const l = level(value);
  switch (provider) {
    case "openai":
      if (l === "off") return {};
      return { reasoning_effort: l === "on" ? "medium" : l };
    case "anthropic":
      if (l === "off") return { thinking: { type: "disabled" } };
      return { thinking: { type: "enabled", budget_tokens: BUDGETS[l === "on" ? "medium" : l] } };
    case "dashscope":
      if (l === "off") return { enable_thinking: false };
      if (l === "on") return { enable_thinking: true };
      return { enable_thinking: true, chat_template_kwargs: { thinking: true } };
    default:
      return l === "off" || l === "on" ? {} : { reasoning_effort: l };
  }
}
