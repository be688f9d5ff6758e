/** Element tables of the HTML to text converter and the test for hidden elements. */

function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}

/** Elements dropped with everything inside them. */
export const SKIP = words(
  "nav footer svg math select button template canvas object audio video map dialog noscript",
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

/** True for elements hidden by `hidden`, `aria-hidden`, `display: none` or navigation roles. */
export function isHidden(attrs: ReadonlyMap<string, string>): boolean {
  return attrs.has("hidden") || attrs.get("aria-hidden") === "true" ||
    attrs.get("role") === "navigation" || /display\s*:\s*none/i.test(attrs.get("style") ?? "");
}
