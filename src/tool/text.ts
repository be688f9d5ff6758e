/** Text helpers shared by the engine's result cap and the tools that page through output. */

import { cutIndex } from "../util/text_cut.ts";

/** Cutting at a grapheme boundary, for the plugins (they import src/tool/, not src/util/). */
export { cutText } from "../util/text_cut.ts";

const DEFAULT_HINT = "use offset/limit to read more";

/**
 * Cuts `text` to at most `maxChars` characters at a line boundary and appends a marker
 * `[... truncated: showing N of M characters; <hint>]`; the marker is counted in the budget.
 * `maxChars` 0 means unlimited. A single line longer than the budget is cut mid-line, at a grapheme
 * boundary (never inside a surrogate pair).
 */
export function truncateAtLine(text: string, maxChars: number, hint = DEFAULT_HINT): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const marker = (shown: number) =>
    `\n[... truncated: showing ${shown} of ${text.length} characters${hint ? `; ${hint}` : ""}]`;
  const budget = maxChars - marker(maxChars).length;
  if (budget <= 0) return marker(0).slice(1);
  let cut = text.lastIndexOf("\n", budget);
  if (cut <= 0) cut = cutIndex(text, budget);
  const kept = text.slice(0, cut);
  return kept + marker(kept.length);
}
