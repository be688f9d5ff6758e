/** The web_search tool and `searchWeb`, the same search for the engine's `web_search` config key. */
import type { Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { parserLoadError } from "./load_error.ts";
import type { WebToolOptions } from "./options.ts";
import { saveResults, type SearchResult } from "./store.ts";
import { cutText } from "../../../src/tool/text.ts";

/** A search's text for the model, whether it failed, and the results kept for `web_fetch id`. */
export interface SearchOutcome extends ToolOutput {
  results: SearchResult[];
}

/** Formats results as a numbered list with URL and snippet lines. */
export function formatResults(results: SearchResult[]): string {
  const items = results.map((r, i) => {
    const snippet = r.snippet.length > 300 ? `${cutText(r.snippet, 299)}…` : r.snippet;
    return [`${i + 1}. ${r.title}`, `   ${r.url}`, ...(snippet ? [`   ${snippet}`] : [])].join(
      "\n",
    );
  });
  return `${items.join("\n\n")}\n\nRead a result with web_fetch id=<number>.`;
}

/**
 * Searches the configured backend (DuckDuckGo HTML by default) and keeps the numbered results for
 * `web_fetch id` in `ctx.session`. Never throws; failures come back with `ok: false`.
 */
export async function searchWeb(
  query: string,
  ctx: Pick<ToolContext, "worktree" | "session" | "signal" | "trusted">,
  options: WebToolOptions = {},
): Promise<SearchOutcome> {
  const text = query.trim();
  if (!text) return { content: "Error: Empty search query", ok: false, results: [] };
  // The backends load on the first search, not when svc starts.
  const modules = await Promise.all([import("./settings.ts"), import("./search.ts")])
    .catch((error) => error instanceof Error ? error : new Error(String(error)));
  if (modules instanceof Error) {
    return { content: `Error: ${parserLoadError(modules)}`, ok: false, results: [] };
  }
  const [{ loadBackend }, { runSearch }] = modules;
  const loaded = await loadBackend(ctx.worktree, options.globalDir, ctx.trusted === true);
  if (!loaded.ok) return { content: `Error: ${loaded.error}`, ok: false, results: [] };
  const found = await runSearch(text, loaded.backend, { ...options, signal: ctx.signal });
  if (!found.ok) return { content: `Error: ${found.error}`, ok: false, results: [] };
  saveResults(ctx.session, found.results);
  const note = loaded.note ? `\n(note: ${loaded.note})` : "";
  if (found.results.length === 0) {
    return { content: `No results for "${text}"${note}`, results: [] };
  }
  return { content: formatResults(found.results) + note, results: found.results };
}

/** Builds the web_search tool; `options` are test seams. */
export function createWebSearchTool(options: WebToolOptions = {}): Tool {
  return {
    name: "web_search",
    category: "web",
    description:
      "Search the web. Returns numbered results (title, URL, snippet); read one with web_fetch id.",
    schema: (z: Zod) => z.object({ query: z.string().min(1) }),
    aliases: ["search", "web"],
    argAliases: { q: "query" },
    async run(args, ctx) {
      const query = String(args.query);
      ctx.status(`searching the web for "${query}"`);
      const outcome = await searchWeb(query, ctx, options);
      return outcome.ok === false ? { content: outcome.content, ok: false } : outcome.content;
    },
  };
}
