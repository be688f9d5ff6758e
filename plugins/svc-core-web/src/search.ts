/** Search backends: DuckDuckGo's HTML results page and SearXNG's JSON API, parsed to results. */
import { type FetchOptions, fetchPage } from "./fetch_page.ts";
import { inlineText, RAW_TEXT, readHtml } from "./html_tokens.ts";
import type { SearchBackend } from "./settings.ts";
import type { SearchResult } from "./store.ts";
import { cutText } from "../../../src/tool/text.ts";

/** Results kept and shown per search. */
export const MAX_RESULTS = 10;

/** Longest title or snippet kept, in characters, bounding work on hostile pages. */
const FRAGMENT_LIMIT = 4096;

/** The target of a DuckDuckGo result link (`//duckduckgo.com/l/?uddg=...`), or null for ads. */
function resultUrl(href: string | undefined): string | null {
  if (!href) return null;
  try {
    const url = new URL(href, "https://duckduckgo.com/");
    const isDdg = url.hostname === "duckduckgo.com" || url.hostname.endsWith(".duckduckgo.com");
    const target = isDdg && url.pathname === "/l/" ? url.searchParams.get("uddg") : null;
    if (isDdg && !target) return null;
    const final = new URL(target ?? url.href);
    return final.protocol === "http:" || final.protocol === "https:" ? final.href : null;
  } catch {
    return null;
  }
}

/** Text of the element being read: its name, open elements of that name, and the text so far. */
interface Capture {
  name: string;
  depth: number;
  text: string;
  done(text: string): void;
}

/** Parses DuckDuckGo's HTML results page, skipping ads; linear in the page size. */
export function parseDdgHtml(html: string): SearchResult[] {
  const results: SearchResult[] = [];
  let ad = false;
  let current: SearchResult | null = null;
  let raw: string | null = null;
  let capture: Capture | null = null;
  const finish = (c: Capture) => c.done(c.text.replace(/\s+/g, " ").trim());
  readHtml(html, {
    open(name, attrs, slash) {
      if (raw) return;
      if (RAW_TEXT.has(name)) {
        raw = name;
        return;
      }
      if (capture) {
        if (name === capture.name && !slash) capture.depth++;
        return;
      }
      const classes = ` ${attrs.get("class") ?? ""} `.replace(/\s+/g, " ");
      if (classes.includes(" result ")) ad = classes.includes(" result--ad ");
      else if (name === "a" && classes.includes(" result__a ")) {
        const url = ad ? null : resultUrl(attrs.get("href"));
        current = url ? { title: url, url, snippet: "" } : null;
        if (!current) return;
        const result: SearchResult = current;
        results.push(result);
        capture = { name, depth: 1, text: "", done: (text) => result.title = text || result.url };
      } else if (current && !current.snippet && classes.includes(" result__snippet ")) {
        const result: SearchResult = current;
        capture = { name, depth: 1, text: "", done: (text) => result.snippet = text };
      }
    },
    close(name) {
      if (raw) {
        if (name === raw) raw = null;
        return;
      }
      if (capture && name === capture.name && --capture.depth === 0) {
        finish(capture);
        capture = null;
      }
    },
    text(value) {
      if (capture && !raw && capture.text.length < FRAGMENT_LIMIT) {
        capture.text = cutText(capture.text + value, FRAGMENT_LIMIT);
      }
    },
  });
  if (capture) finish(capture);
  return results;
}

/** Parses a SearXNG `format=json` answer; null when it is not one. */
export function parseSearxng(json: string): SearchResult[] | null {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return null;
  }
  const list = (data as { results?: unknown })?.results;
  if (!Array.isArray(list)) return null;
  const results: SearchResult[] = [];
  for (const item of list as Array<Record<string, unknown>>) {
    const url = typeof item?.url === "string" ? resultUrl(item.url) : null;
    if (!url) continue;
    const text = (value: unknown) =>
      typeof value === "string" ? inlineText(cutText(value, FRAGMENT_LIMIT)) : "";
    results.push({ title: text(item.title) || url, url, snippet: text(item.content) });
  }
  return results;
}

/** Asks `backend` for `query`; at most MAX_RESULTS results, or an error message. */
export async function runSearch(
  query: string,
  backend: SearchBackend,
  options: FetchOptions,
): Promise<{ ok: true; results: SearchResult[] } | { ok: false; error: string }> {
  const address = backend.template.replaceAll("{query}", encodeURIComponent(query));
  const allowHosts = backend.trusted
    ? [...(options.allowHosts ?? []), new URL(address).hostname]
    : options.allowHosts;
  const fetched = await fetchPage(address, { ...options, allowHosts });
  if (!fetched.ok) return { ok: false, error: `Search failed: ${fetched.error}` };
  const body = fetched.page.body;
  const results = backend.format === "searxng" ? parseSearxng(body) : parseDdgHtml(body);
  if (results === null) {
    return { ok: false, error: `Search failed: ${backend.name} did not answer with SearXNG JSON` };
  }
  if (results.length === 0 && /anomaly|challenge|captcha/i.test(body)) {
    return {
      ok: false,
      error: `Search failed: ${backend.name} answered with a bot check instead of results; ` +
        "configure another backend in ~/.config/svc/web.json",
    };
  }
  return { ok: true, results: results.slice(0, MAX_RESULTS) };
}
