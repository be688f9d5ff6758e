import type { FetchOptions } from "./fetch_page.ts";

/**
 * Seams of the web tools. The registered tools use none; tests pass a short time cap, a fake
 * resolver, a temporary global settings folder and `allowHosts` for their 127.0.0.1 server.
 */
export interface WebToolOptions extends Omit<FetchOptions, "signal"> {
  /** Folder holding the global web.json (default `~/.config/svc`). */
  globalDir?: string | null;
}
