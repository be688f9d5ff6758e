/** Element tables and attribute helpers of the HTML to text converter. */
import { decodeEntities } from "./entities.ts";

function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}

/** Raw-text elements: their content is never markup and is skipped (the title is kept). */
export const RAW = words("script style textarea title xmp iframe noembed noframes noscript");
/** Elements dropped with everything inside them. */
export const SKIP = words(
  "nav footer svg math select button template canvas object audio video map dialog",
);
/** Elements dropped when hidden; only those whose end tag is never omitted. */
export const SKIP_WHEN_HIDDEN = words(
  "div span section aside header ul ol table form figure details",
);
/** Elements without content or end tag. */
export const VOID = words("area base br col embed hr img input link meta param source track wbr");
/** Elements separated by a blank line. */
export const PARAGRAPH = words(
  "p pre blockquote table ul ol dl figure hr section article main header aside details form " +
    "fieldset address h1 h2 h3 h4 h5 h6",
);
/** Elements that start a new line. */
export const LINE = words("div li tr dt dd figcaption summary caption option center legend");
const TAG = /^<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/;
const TAG_START = /^<\/?[a-zA-Z]/;
const QUOTED_TAG_SCAN = 1024;

/** One start or end tag: lower-cased name, raw attribute text, and the index after its `>`. */
export interface Tag {
  closing: boolean;
  name: string;
  source: string;
  end: number;
}

/**
 * Reads tags in linear time overall: a quote-aware match within a bounded window, then the next
 * `>` (found once and reused), so unterminated quotes or a flood of `<` cannot go quadratic.
 */
export class TagReader {
  #html: string;
  #nextGt = -2;

  constructor(html: string) {
    this.#html = html;
  }

  /** The tag starting at `lt` (the index of a `<`), or null when none starts there. */
  read(lt: number): Tag | null {
    const html = this.#html;
    if (this.#nextGt !== -1 && this.#nextGt < lt) this.#nextGt = html.indexOf(">", lt);
    if (this.#nextGt === -1 || !TAG_START.test(html.slice(lt, lt + 3))) return null;
    let m = html.slice(lt, lt + QUOTED_TAG_SCAN).match(TAG);
    if (!m) m = html.slice(lt, this.#nextGt + 1).match(TAG_UNQUOTED);
    if (!m) return null;
    return { closing: m[1] === "/", name: m[2].toLowerCase(), source: m[3], end: lt + m[0].length };
  }
}

const TAG_UNQUOTED = /^<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^>]*)>$/;
const ATTR = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

/** Parses a tag's attribute text into a lower-cased name to decoded value map. */
export function parseAttributes(source: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of source.matchAll(ATTR)) {
    const name = m[1].toLowerCase();
    if (!attrs.has(name)) attrs.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return attrs;
}

/** True for elements hidden by `hidden`, `aria-hidden`, `display: none` or navigation roles. */
export function isHidden(source: string): boolean {
  if (!/hidden|none|navigation/i.test(source)) return false;
  const attrs = parseAttributes(source);
  return attrs.has("hidden") || attrs.get("aria-hidden") === "true" ||
    attrs.get("role") === "navigation" || /display\s*:\s*none/i.test(attrs.get("style") ?? "");
}

/** Text of an HTML fragment on one line: tags dropped, entities decoded, whitespace collapsed. */
export function inlineText(fragment: string): string {
  return decodeEntities(fragment.replace(/<[^<>]*>/g, "")).replace(/\s+/g, " ").trim();
}
