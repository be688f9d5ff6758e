/**
 * YAML front matter of skill files: an optional block between two `---` lines at the very start,
 * as in the `<name>/SKILL.md` files of other agent tools. The YAML parser loads on first use.
 */

/** The parsed front matter (empty without one) and the text after it, or what is wrong. */
export type FrontMatter =
  | { data: Record<string, unknown>; body: string }
  | { problem: string };

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/** Splits `text` into front matter and body; text without an opening `---` line is all body. */
export async function splitFrontMatter(text: string): Promise<FrontMatter> {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const open = OPEN.exec(source);
  if (!open) return { data: {}, body: source };
  const rest = source.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { problem: "its front matter starts with --- but has no closing --- line" };
  const yaml = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  // The default export: yaml is CommonJS, and a bundle's chunk of it has no named exports.
  const { parse } = (await import("yaml")).default;
  let data: unknown;
  try {
    // The core schema only: no custom tags, and aliases are capped (no "billion laughs").
    data = parse(yaml, { logLevel: "error", maxAliasCount: 100 }) ?? {};
  } catch (err) {
    return {
      problem: `its front matter is not valid YAML (${(err as Error).message.split("\n")[0]})`,
    };
  }
  if (typeof data !== "object" || Array.isArray(data)) {
    return { problem: "its front matter must be a YAML mapping (key: value lines)" };
  }
  return { data: data as Record<string, unknown>, body };
}
