/**
 * HTML to readable text: headings as `#` lines, paragraphs and list items on their own lines,
 * links as `text (url)`, table cells joined with ` | `. Scripts, styles, navigation, footers and
 * hidden elements are dropped. Tokens come from htmlparser2 (`html_tokens.ts`); this file decides
 * only what each element becomes. Linear in the page; malformed markup degrades to plain text.
 */
import { isHidden, LINE, PARAGRAPH, SKIP, SKIP_WHEN_HIDDEN, VOID } from "./html_tags.ts";
import { RAW_TEXT, readHtml } from "./html_tokens.ts";
import { TextWriter } from "./text_writer.ts";

/** Readable text and title of an HTML document. */
export interface HtmlText {
  title: string;
  text: string;
}

/** Elements that start a list or a list item: they always break the line. */
const LISTS = new Set(["ul", "ol", "li"]);

/** Deepest list nesting that still adds indentation, so hostile nesting cannot blow up the text. */
const MAX_INDENT = 8;

/** Converts an HTML document to readable text; `baseUrl` resolves relative links. */
// One piece: the tokenizer's callbacks share one converter state (skip, raw text, lists, link).
export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const out = new TextWriter();
  let title: string | null = null;
  let titleText = "";
  let base = baseUrl;
  let raw: string | null = null;
  let skip: { name: string; depth: number } | null = null;
  let pre = 0;
  let link: { href: string; start: number } | null = null;
  const lists: Array<{ ordered: boolean; n: number }> = [];
  let cells = 0;
  const endTag = (name: string) => {
    if (name === "a" && link) {
      const text = out.since(link.start).trim();
      if (text && !sameAsText(link.href, text)) out.inline(` (${link.href})`);
      link = null;
    } else if (name === "pre") pre = Math.max(0, pre - 1);
    else if ((name === "ul" || name === "ol") && lists.length) lists.pop();
    if (PARAGRAPH.has(name)) out.block(breakAfter(name, lists.length));
    else if (LINE.has(name)) out.block(1);
  };
  readHtml(html, {
    open(name, attrs, slash) {
      if (raw) return;
      // The tokenizer reads a raw-text element's content as text even after `/>`.
      if (RAW_TEXT.has(name)) {
        raw = name;
        if (name === "title" && title === null && !skip) titleText = "";
        return;
      }
      const selfClosing = slash || VOID.has(name);
      if (skip) {
        if (name === skip.name && !selfClosing) skip.depth++;
        return;
      }
      if (!selfClosing && (SKIP.has(name) || (SKIP_WHEN_HIDDEN.has(name) && isHidden(attrs)))) {
        skip = { name, depth: 1 };
        return;
      }
      // `<li><p>text` is one list item line: a block right after a marker or `#` stays on its line.
      const inline = out.afterPrefix && !LISTS.has(name);
      if (PARAGRAPH.has(name) && !inline) out.block(breakAfter(name, lists.length));
      else if (LINE.has(name) && !inline) out.block(1);
      switch (name) {
        case "br":
          out.lineBreak();
          break;
        case "pre":
          pre++;
          break;
        case "ul":
        case "ol":
          lists.push({ ordered: name === "ol", n: 0 });
          break;
        case "li": {
          const list = lists.at(-1);
          const marker = list?.ordered ? `${++list.n}. ` : "- ";
          const depth = Math.min(MAX_INDENT, Math.max(0, lists.length - 1));
          out.prefix("  ".repeat(depth) + marker);
          break;
        }
        case "tr":
          cells = 0;
          break;
        case "td":
        case "th":
          if (cells++ > 0) out.inline(" | ");
          break;
        case "base":
          base = resolveLink(attrs.get("href"), base) ?? base;
          break;
        case "a": {
          if (link) endTag("a");
          const href = resolveLink(attrs.get("href"), base);
          link = href ? { href, start: out.length } : null;
          break;
        }
        case "img": {
          const alt = link ? attrs.get("alt")?.trim() : "";
          if (alt) out.text(alt, false);
          break;
        }
        default:
          if (/^h[1-6]$/.test(name)) out.prefix("#".repeat(Number(name[1])) + " ");
      }
    },
    close(name) {
      if (raw) {
        if (name !== raw) return;
        if (name === "title" && title === null && !skip) {
          title = titleText.replace(/\s+/g, " ").trim();
        }
        raw = null;
        return;
      }
      if (skip) {
        if (name === skip.name && --skip.depth === 0) skip = null;
        return;
      }
      if (name === "br") out.lineBreak();
      else endTag(name);
    },
    text(value) {
      if (raw === "title") titleText += value;
      else if (!raw && !skip) out.text(value, pre > 0);
    },
  });
  return { title: title ?? "", text: out.toString() };
}

/** Nested lists sit on the next line; other paragraph-level elements get a blank line. */
function breakAfter(name: string, listDepth: number): number {
  return (name === "ul" || name === "ol") && listDepth > 0 ? 1 : 2;
}

function sameAsText(href: string, text: string): boolean {
  const bare = (s: string) => s.replace(/^[a-z]+:(\/\/)?/i, "").replace(/\/$/, "");
  return bare(href) === bare(text);
}

/** An absolute http(s) or mailto link, or null for fragments, scripts and unparsable values. */
function resolveLink(href: string | undefined, base: string | undefined): string | null {
  if (!href || href.startsWith("#")) return null;
  try {
    const url = new URL(href.trim(), base);
    if (!["http:", "https:", "mailto:"].includes(url.protocol)) return null;
    return url.href;
  } catch {
    return null;
  }
}
