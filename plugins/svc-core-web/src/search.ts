/** Search backends: DuckDuckGo's HTML results page and SearXNG's JSON API, parsed to results. */
import { type FetchOptions, fetchPage } from "./fetch_page.ts";
import { inlineText, parseAttributes } from "./html_tags.ts";
import type { SearchBackend } from "./settings.ts";
import type { SearchResult } from "./store.ts";

/** Results kept and shown per search. */
export const MAX_RESULTS = 10;

const RESULT_LINK = /<a\b([^>]*\bclass="[^"]*\bresult__a\b[^"]*"[^>]*)>([\s\S]*?)<\/a>/gi;
const SNIPPET = /<(a|div|td)\b[^>]*\bclass="[^"]*\bresult__snippet\b[^"]*"[^>]*>([\s\S]*?)<\/\1>/i;

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

/** Parses DuckDuckGo's HTML results page, skipping ads. */
export function parseDdgHtml(html: string): SearchResult[] {
  const links = [...html.matchAll(RESULT_LINK)];
  const results: SearchResult[] = [];
  links.forEach((link, i) => {
    const previous = links[i - 1];
    const from = previous ? previous.index + previous[0].length : 0;
    if (/\bresult--ad\b/.test(html.slice(from, link.index))) return;
    const url = resultUrl(parseAttributes(link[1]).get("href"));
    if (!url) return;
    const after = html.slice(link.index + link[0].length, links[i + 1]?.index ?? html.length);
    const snippet = after.match(SNIPPET);
    results.push({
      title: inlineText(link[2]) || url,
      url,
      snippet: snippet ? inlineText(snippet[2]) : "",
    });
  });
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
    const text = (value: unknown) => typeof value === "string" ? inlineText(value) : "";
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
