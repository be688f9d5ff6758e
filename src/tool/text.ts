/** Text helpers shared by the engine's result cap and the tools that page through output. */

const DEFAULT_HINT = "use offset/limit to read more";

/**
 * Cuts `text` to at most `maxChars` characters at a line boundary and appends a marker
 * `[... truncated: showing N of M characters; <hint>]`; the marker is counted in the budget.
 * `maxChars` 0 means unlimited. A single line longer than the budget is cut mid-line.
 */
export function truncateAtLine(text: string, maxChars: number, hint = DEFAULT_HINT): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const marker = (shown: number) =>
    `\n[... truncated: showing ${shown} of ${text.length} characters${hint ? `; ${hint}` : ""}]`;
  const budget = maxChars - marker(maxChars).length;
  if (budget <= 0) return marker(0).slice(1);
  let cut = text.lastIndexOf("\n", budget);
  if (cut <= 0) cut = safeCut(text, budget);
  const kept = text.slice(0, cut);
  return kept + marker(kept.length);
}

/** Index at or below `at` that does not split a UTF-16 surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
