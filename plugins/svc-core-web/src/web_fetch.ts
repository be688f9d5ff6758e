/** The web_fetch tool: a page by URL or search result number, as readable text in windows. */
import type { Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import type { ResolverArgs } from "../../../src/tool/types.ts";
import { parserLoadError } from "./load_error.ts";
import type { WebToolOptions } from "./options.ts";
import { loadPage, loadResults, type PageText, savePage } from "./store.ts";
import { needsApproval, normalizeHost } from "./target.ts";

/** Characters of page text per call; longer pages end with a continuation marker. */
export const PAGE_WINDOW = 20_000;

function fail(message: string): ToolOutput {
  return { content: `Error: ${message}`, ok: false };
}

/** The window size for `config`: PAGE_WINDOW, shrunk so the engine's result cap keeps the marker. */
export function windowSize(config: Pick<ToolContext["config"], "tool_max_result_chars">): number {
  const cap = config.tool_max_result_chars;
  return cap > 0 ? Math.min(PAGE_WINDOW, Math.max(500, cap - 600)) : PAGE_WINDOW;
}

/** Renders `page` from `offset`: header, one window of text, and the marker naming the next offset. */
export function renderPage(
  page: PageText,
  { offset, size }: { offset: number; size: number },
): ToolOutput {
  const total = page.text.length;
  if (offset > 0 && offset >= total) {
    return fail(`Offset ${offset} is past the end of the page (${total} characters)`);
  }
  let end = Math.min(total, offset + size);
  if (end < total) {
    const newline = page.text.lastIndexOf("\n", end - 1);
    if (newline >= offset + size * 0.8) end = newline + 1;
    const code = page.text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
  }
  const header = [
    `URL: ${page.url} (${page.mediaType})`,
    ...(page.title ? [`Title: ${page.title}`] : []),
    `Characters ${offset}-${end} of ${total}`,
  ];
  const body = page.text.slice(offset, end).trimEnd() || "(no readable text)";
  const marker = end < total ? `\n\n[... more: call web_fetch with offset=${end}]` : "";
  return { content: `${header.join("\n")}\n\n${body}${marker}` };
}

type Picked = { url: URL; fromResult: number | null } | ToolOutput;

function pickUrl(args: Record<string, unknown>, session: string): Picked {
  if (args.url !== undefined && args.id !== undefined) {
    return fail("Pass either url or id, not both");
  }
  if (args.id !== undefined) {
    const id = Number(args.id);
    const results = loadResults(session);
    if (!results) {
      return fail("No web_search results in this session yet; search first or pass url");
    }
    if (!results[id - 1]) {
      return fail(`No result ${id}; the last web_search returned ${results.length}`);
    }
    return { url: new URL(results[id - 1].url), fromResult: id };
  }
  if (typeof args.url !== "string") {
    return fail("Pass url, or id (a result number from web_search)");
  }
  try {
    return { url: new URL(args.url.trim()), fromResult: null };
  } catch {
    return fail(`Invalid URL: ${args.url}`);
  }
}

/** Builds the web_fetch tool; `options` are test seams (caps, resolver, allowed test hosts). */
export function createWebFetchTool(options: WebToolOptions = {}): Tool {
  return {
    name: "web_fetch",
    category: "web",
    description: "Read a web page as text: url, or id of a web_search result. " +
      "Long pages end with a marker naming the offset of the next part.",
    schema: (z: Zod) =>
      z.object({
        url: z.string().optional(),
        id: z.number().int().min(1).optional(),
        offset: z.number().int().min(0).optional().describe("from the marker"),
      }),
    aliases: ["open", "fetch_page", "fetch"],
    argAliases: { cursor: "offset" },
    resolvePolicy(args: ResolverArgs) {
      if (typeof args.url !== "string") return undefined;
      try {
        return needsApproval(new URL(args.url.trim())) ? "ask" : undefined;
      } catch {
        return undefined;
      }
    },
    async run(args, ctx) {
      const picked = pickUrl(args, ctx.session);
      if ("content" in picked) return picked;
      const { url, fromResult } = picked;
      const local = needsApproval(url);
      if (local && fromResult !== null) {
        return fail(
          `Result ${fromResult} points to a private or local host (${url.hostname}); ` +
            "pass its URL as url so the user can approve it",
        );
      }
      // resolvePolicy made the engine ask for local hosts given as url; the approval covers
      // that host only, never redirects or search results elsewhere.
      const allowHosts = [
        ...(options.allowHosts ?? []),
        ...(local ? [normalizeHost(url.hostname)] : []),
      ];
      const offset = Number(args.offset ?? 0);
      let page = offset > 0 ? loadPage(ctx.session, url.href) : undefined;
      if (!page) {
        ctx.status(`fetching ${url.href}`);
        // The fetcher and the HTML converter load on the first fetch, not when svc starts.
        const loaded = await Promise.all([import("./fetch_page.ts"), import("./html_text.ts")])
          .catch((error) => error instanceof Error ? error : new Error(String(error)));
        if (loaded instanceof Error) return fail(parserLoadError(loaded));
        const [{ fetchPage }, { htmlToText }] = loaded;
        const fetched = await fetchPage(url.href, { ...options, allowHosts, signal: ctx.signal });
        if (!fetched.ok) return fail(fetched.error);
        const raw = fetched.page;
        const html = raw.kind === "html" ? htmlToText(raw.body, raw.url) : null;
        const cut = raw.truncated
          ? "\n\n[page cut at the download cap; the rest was not read]"
          : "";
        page = {
          url: raw.url,
          title: html?.title ?? "",
          mediaType: raw.mediaType,
          text: (html ? html.text : raw.body) + cut,
        };
        savePage(ctx.session, { requested: url.href, page });
      }
      return renderPage(page, { offset, size: windowSize(ctx.config) });
    },
  };
}
