/**
 * svc-core-web: web_search (DuckDuckGo's HTML endpoint by default, SearXNG or another
 * DuckDuckGo-shaped backend through web.json) and web_fetch (readable page text in windows,
 * SSRF-guarded, byte and time capped). See the Web tools section of docs/tools.md.
 */
import type { PluginHooks } from "../../src/plugin/api.ts";
import { createWebFetchTool } from "./src/web_fetch.ts";
import { createWebSearchTool } from "./src/web_search.ts";

export { createWebFetchTool } from "./src/web_fetch.ts";
export { createWebSearchTool, type SearchOutcome, searchWeb } from "./src/web_search.ts";

/** Registers web_search and web_fetch. */
export const register_tools: PluginHooks["register_tools"] = (registry) => {
  registry.add(createWebSearchTool());
  registry.add(createWebFetchTool());
};
