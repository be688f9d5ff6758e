/**
 * HTML tokens from htmlparser2's tokenizer: start tags with decoded attributes, end tags and
 * decoded text. The tokenizer does the HTML work (tag and attribute syntax, comments, doctype,
 * raw text of `script`/`style`, RCDATA of `title`/`textarea`, every named and numeric character
 * reference through the `entities` package). Its Parser is not used: it keeps the open elements
 * in an array it shifts and unshifts, which takes seconds on deeply nested hostile markup
 * (100,000 `<nav>`: 8.6 s), while the tokenizer is linear. Callers track only the nesting they
 * need. Loaded with the converter, on the first fetch or search.
 */
import { Tokenizer } from "htmlparser2";

/** What a caller of `readHtml` receives, in document order. */
export interface HtmlTokenHandler {
  /** A start tag: lower-cased name, attributes (first of each name wins), `/>` seen. */
  open(name: string, attrs: ReadonlyMap<string, string>, selfClosing: boolean): void;
  /** An end tag, lower-cased. */
  close(name: string): void;
  /** Text with character references decoded; adjacent pieces come as one call. */
  text(value: string): void;
}

/** Runs `handler` over the tokens of `html` in one linear pass. */
export function readHtml(html: string, handler: HtmlTokenHandler): void {
  let text = "";
  let name = "";
  let attrs = new Map<string, string>();
  let attrName = "";
  let attrValue = "";
  const flush = () => {
    if (text) handler.text(text);
    text = "";
  };
  const slice = (start: number, end: number) => html.slice(start, end);
  const openTag = (selfClosing: boolean) => {
    const tag = name;
    const tagAttrs = attrs;
    name = "";
    attrs = new Map();
    if (tag) handler.open(tag, tagAttrs, selfClosing);
  };
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, {
    ontext(start, end) {
      text += slice(start, end);
    },
    ontextentity(codepoint) {
      text += String.fromCodePoint(codepoint);
    },
    onopentagname(start, end) {
      flush();
      name = slice(start, end).toLowerCase();
      attrs = new Map();
    },
    onattribname(start, end) {
      attrName = slice(start, end).toLowerCase();
      attrValue = "";
    },
    onattribdata(start, end) {
      attrValue += slice(start, end);
    },
    onattribentity(codepoint) {
      attrValue += String.fromCodePoint(codepoint);
    },
    onattribend() {
      if (!attrs.has(attrName)) attrs.set(attrName, attrValue);
      attrValue = "";
    },
    onopentagend() {
      openTag(false);
    },
    onselfclosingtag() {
      openTag(true);
    },
    onclosetag(start, end) {
      flush();
      handler.close(slice(start, end).toLowerCase());
    },
    oncdata() {},
    oncomment() {},
    ondeclaration() {},
    onprocessinginstruction() {},
    onend() {
      flush();
    },
  });
  tokenizer.write(html);
  tokenizer.end();
}

/** Elements whose content is raw text to the tokenizer (`title`'s is the page title). */
export const RAW_TEXT = new Set([
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
]);

/** Text of an HTML fragment on one line: tags and raw-text elements dropped, whitespace collapsed. */
export function inlineText(fragment: string): string {
  let raw: string | null = null;
  let out = "";
  readHtml(fragment, {
    open(name) {
      if (!raw && RAW_TEXT.has(name)) raw = name;
    },
    close(name) {
      if (name === raw) raw = null;
    },
    text(value) {
      if (!raw) out += value;
    },
  });
  return out.replace(/\s+/g, " ").trim();
}
