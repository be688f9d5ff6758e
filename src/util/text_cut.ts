/**
 * Cutting text at a length cap without breaking characters. A cap counted in UTF-16 code units
 * can land inside a surrogate pair (an emoji, a CJK extension character) and leave a lone half,
 * which is not valid UTF-8 and which strict backends refuse in the next request; it can also land
 * inside a grapheme cluster (a flag, a family emoji, a letter with combining marks). These helpers
 * move the cut back to a grapheme boundary found within a small window around it, and never to
 * anything but a code point boundary.
 */

/** How far back (code units) a grapheme boundary is looked for; longer clusters cut by code point. */
const WINDOW = 32;

let segmenter: Intl.Segmenter | undefined;

/**
 * The largest index at or below `at` where `text` can be cut: a grapheme boundary when one lies
 * within the last few characters before `at`, else the nearest code point boundary.
 */
export function cutIndex(text: string, at: number): number {
  if (at >= text.length) return text.length;
  if (at <= 0) return 0;
  const from = Math.max(0, at - WINDOW);
  // The window runs a little past the cut so the cluster straddling it is seen whole.
  const window = text.slice(from, Math.min(text.length, at + WINDOW));
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let cut = -1;
  for (const { index } of segmenter.segment(window)) {
    if (from + index > at) break;
    cut = from + index;
  }
  // Only the window's own start was found: the cluster is longer than the window.
  if (cut <= from && from > 0) cut = at;
  return codePointIndex(text, cut);
}

/** `text` cut to at most `max` code units at a grapheme (at least code point) boundary. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, cutIndex(text, max));
}

/** The last at most `max` code units of `text`, starting at a code point boundary. */
export function tailText(text: string, max: number): string {
  if (text.length <= max) return text;
  let from = text.length - Math.max(0, max);
  const code = text.charCodeAt(from);
  if (code >= 0xdc00 && code <= 0xdfff) from++;
  return text.slice(from);
}

/** Index at or below `at` that does not split a UTF-16 surrogate pair. */
function codePointIndex(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return at > 0 && code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
