/**
 * Per-session memory of the web tools: the numbered results of the last web_search (for
 * `web_fetch id`) and recently converted pages (so paging with `offset` reads one consistent
 * copy). Module-level and bounded; it lives as long as the engine process.
 */

/** One search hit as shown to the model. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A fetched page converted to readable text. */
export interface PageText {
  url: string;
  title: string;
  mediaType: string;
  text: string;
}

const MAX_SESSIONS = 64;
const MAX_PAGES = 8;
const PAGE_TTL_MS = 10 * 60 * 1000;

const results = new Map<string, SearchResult[]>();
const pages = new Map<string, { page: PageText; at: number }>();

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

/** Keeps `list` as the session's latest search results, replacing older ones. */
export function saveResults(session: string, list: SearchResult[]): void {
  remember(results, session, list, MAX_SESSIONS);
}

/** The session's latest search results, or undefined before any search. */
export function loadResults(session: string): SearchResult[] | undefined {
  return results.get(session);
}

/** Caches a converted page for `offset` follow-ups. */
export function savePage(
  session: string,
  { requested, page }: { requested: string; page: PageText },
): void {
  remember(pages, `${session}\n${requested}`, { page, at: Date.now() }, MAX_PAGES);
}

/** A cached page younger than ten minutes, or undefined. */
export function loadPage(session: string, requested: string): PageText | undefined {
  const hit = pages.get(`${session}\n${requested}`);
  return hit && Date.now() - hit.at < PAGE_TTL_MS ? hit.page : undefined;
}
