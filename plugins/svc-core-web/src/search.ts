/** Search backends: DuckDuckGo's HTML results page and SearXNG's JSON API, parsed to results. */
import { type FetchOptions, fetchPage } from "./fetch_page.ts";
import { inlineText, parseAttributes, TagReader } from "./html_tags.ts";
import type { SearchBackend } from "./settings.ts";
import type { SearchResult } from "./store.ts";

/** Results kept and shown per search. */
export const MAX_RESULTS = 10;

/** How far past a tag its closing tag is looked for, bounding work on hostile pages. */
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

function fragment(html: string, from: number, closeTag: string): string {
  const window = html.slice(from, from + FRAGMENT_LIMIT);
  const close = window.indexOf(closeTag);
  return inlineText(close === -1 ? window : window.slice(0, close));
}

/** Parses DuckDuckGo's HTML results page, skipping ads; linear in the page size. */
export function parseDdgHtml(html: string): SearchResult[] {
  const reader = new TagReader(html);
  const results: SearchResult[] = [];
  let ad = false;
  let current: SearchResult | null = null;
  for (let lt = html.indexOf("<"); lt !== -1;) {
    const tag = reader.read(lt);
    lt = html.indexOf("<", tag ? tag.end : lt + 1);
    if (!tag || tag.closing || !tag.source.includes("result")) continue;
    const attrs = parseAttributes(tag.source);
    const classes = ` ${attrs.get("class") ?? ""} `.replace(/\s+/g, " ");
    if (classes.includes(" result ")) ad = classes.includes(" result--ad ");
    else if (tag.name === "a" && classes.includes(" result__a ")) {
      const url = ad ? null : resultUrl(attrs.get("href"));
      current = url ? { title: fragment(html, tag.end, "</a") || url, url, snippet: "" } : null;
      if (current) results.push(current);
    } else if (current && !current.snippet && classes.includes(" result__snippet ")) {
      current.snippet = fragment(html, tag.end, `</${tag.name}`);
    }
  }
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
      typeof value === "string" ? inlineText(value.slice(0, FRAGMENT_LIMIT)) : "";
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
