/** How front-ends word a context figure and a compaction (`svc run --verbose`, the REPL). */
import type { CompactionEvent, TurnContext } from "../engine/events.ts";

/** `12.3k`, `950`, and `32k` for a window of a whole number of KiB tokens (32,768). */
export function tokenFigure(n: number): string {
  if (n < 1000) return String(n);
  if (n % 1024 === 0) return `${n / 1024}k`;
  return `${Number((n / 1000).toFixed(1))}k`;
}

/** `context: ~12.3k of 32k tokens` (the window left out when unknown). */
export function contextFigure(context: TurnContext): string {
  const of = context.window ? ` of ${tokenFigure(context.window)}` : "";
  return `context: ~${tokenFigure(context.estimated_tokens)}${of} tokens`;
}

/** One line for a compaction event. */
export function compactionNote(event: CompactionEvent): string {
  const why = event.reason === "overflow"
    ? "the backend refused the request as too long"
    : event.trigger === "auto"
    ? "the request neared the context window"
    : "/compact";
  const size = event.estimated_tokens !== undefined
    ? ` at ~${tokenFigure(event.estimated_tokens)}${
      event.window ? ` of ${tokenFigure(event.window)}` : ""
    } tokens`
    : "";
  return `compacted the context (${why}${size}): ${event.summarized} messages summarized, ` +
    `${event.kept} kept verbatim`;
}
