/**
 * HTML to readable text: headings as `#` lines, paragraphs and list items on their own lines,
 * links as `text (url)`, table cells joined with ` | `. Scripts, styles, navigation, footers and
 * hidden elements are dropped. A single linear pass; malformed markup degrades to plain text.
 */
import { decodeEntities } from "./entities.ts";
import {
  isHidden,
  LINE,
  PARAGRAPH,
  parseAttributes,
  RAW,
  SKIP,
  SKIP_WHEN_HIDDEN,
  TagReader,
  VOID,
} from "./html_tags.ts";
import { TextWriter } from "./text_writer.ts";

/** Readable text and title of an HTML document. */
export interface HtmlText {
  title: string;
  text: string;
}

/** Converts an HTML document to readable text; `baseUrl` resolves relative links. */
export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const out = new TextWriter();
  let title = "";
  let base = baseUrl;
  let skip: { name: string; depth: number } | null = null;
  let pre = 0;
  let link: { href: string; start: number } | null = null;
  const lists: Array<{ ordered: boolean; n: number }> = [];
  let cells = 0;
  const tags = new TagReader(html);
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const stop = lt === -1 ? html.length : lt;
    if (stop > i && !skip) out.text(decodeEntities(html.slice(i, stop)), pre > 0);
    if (lt === -1) break;
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4);
      i = close === -1 ? html.length : close + 3;
      continue;
    }
    const m = tags.read(lt);
    if (!m) {
      const bang = html[lt + 1] === "!" || html[lt + 1] === "?";
      const close = bang ? html.indexOf(">", lt) : -1;
      if (!bang && !skip) out.text("<", pre > 0);
      i = bang ? (close === -1 ? html.length : close + 1) : lt + 1;
      continue;
    }
    i = m.end;
    const { closing, name, source } = m;
    const selfClosing = source.endsWith("/") || VOID.has(name);
    if (!closing && RAW.has(name) && !source.endsWith("/")) {
      const end = new RegExp(`</${name}[\\s/>]`, "ig");
      end.lastIndex = i;
      const found = end.exec(html);
      const contentEnd = found ? found.index : html.length;
      if (name === "title" && !title && !skip) {
        title = decodeEntities(html.slice(i, contentEnd)).replace(/\s+/g, " ").trim();
      }
      i = found ? html.indexOf(">", contentEnd) + 1 || html.length : html.length;
      continue;
    }
    if (skip) {
      if (name === skip.name && !selfClosing) skip.depth += closing ? -1 : 1;
      if (skip.depth === 0) skip = null;
      continue;
    }
    if (closing) {
      if (name === "a" && link) {
        const text = out.since(link.start).trim();
        if (text && !sameAsText(link.href, text)) {
          out.inline(` (${link.href})`);
        }
        link = null;
      } else if (name === "pre") pre = Math.max(0, pre - 1);
      else if ((name === "ul" || name === "ol") && lists.length) lists.pop();
      if (PARAGRAPH.has(name)) out.block(breakAfter(name, lists.length));
      else if (LINE.has(name)) out.block(1);
      continue;
    }
    if (!selfClosing && (SKIP.has(name) || (SKIP_WHEN_HIDDEN.has(name) && isHidden(source)))) {
      skip = { name, depth: 1 };
      continue;
    }
    if (PARAGRAPH.has(name)) out.block(breakAfter(name, lists.length));
    else if (LINE.has(name)) out.block(1);
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
        out.prefix("  ".repeat(Math.max(0, lists.length - 1)) + marker);
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
        base = resolveLink(parseAttributes(source).get("href"), base) ?? base;
        break;
      case "a": {
        const href = resolveLink(parseAttributes(source).get("href"), base);
        link = href ? { href, start: out.length } : null;
        break;
      }
      case "img": {
        const alt = link ? parseAttributes(source).get("alt")?.trim() : "";
        if (alt) out.text(alt, false);
        break;
      }
      default:
        if (/^h[1-6]$/.test(name)) out.prefix("#".repeat(Number(name[1])) + " ");
    }
  }
  return { title, text: out.toString() };
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
