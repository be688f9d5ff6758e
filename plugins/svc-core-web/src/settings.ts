/**
 * The plugin's own settings file, `web.json`, read from `~/.config/svc/` and `<worktree>/.svc/`
 * (local keys win): `{"search_url": "http://host/search?q={query}&format=json", "format":
 * "searxng" | "ddg-html"}`. A search backend on a private or loopback host is accepted only from
 * the global file, because tools inside the worktree could otherwise rewrite the local one.
 */
import { join } from "node:path";
import { z } from "zod";
import { needsApproval } from "./target.ts";

/** Where and how web_search asks; `trusted` backends may live on private addresses. */
export interface SearchBackend {
  name: string;
  template: string;
  format: "ddg-html" | "searxng";
  trusted: boolean;
}

/** The default backend: DuckDuckGo's HTML endpoint, which needs no key. */
export const DEFAULT_BACKEND: SearchBackend = {
  name: "duckduckgo",
  template: "https://html.duckduckgo.com/html/?q={query}",
  format: "ddg-html",
  trusted: false,
};

const WebSettingsSchema = z.strictObject({
  search_url: z.string().refine((s) => s.includes("{query}"), "must contain {query}").optional(),
  format: z.enum(["ddg-html", "searxng"]).optional(),
});
type WebSettings = z.infer<typeof WebSettingsSchema>;

type Loaded = { ok: true; settings: WebSettings } | { ok: false; error: string };

async function readSettings(path: string): Promise<Loaded> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    // Missing, or not readable under a plugin sandbox without read permission: defaults apply.
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) {
      return { ok: true, settings: {} };
    }
    return { ok: false, error: `Could not read ${path}: ${(err as Error).message}` };
  }
  try {
    const parsed = WebSettingsSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { ok: true, settings: parsed.data };
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      error: `Invalid ${path}: ${issue.path.join(".") || "file"} ${issue.message}`,
    };
  } catch (err) {
    return { ok: false, error: `Invalid JSON in ${path}: ${(err as Error).message}` };
  }
}

/** `~/.config/svc`, or null when HOME is unknown or unreadable. */
export function defaultGlobalDir(): string | null {
  try {
    const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
    return home ? join(home, ".config", "svc") : null;
  } catch {
    return null;
  }
}

/** The search backend configured for `worktree`, or the DuckDuckGo default. */
export async function loadBackend(
  worktree: string,
  globalDir: string | null = defaultGlobalDir(),
): Promise<{ ok: true; backend: SearchBackend } | { ok: false; error: string }> {
  const localPath = join(worktree, ".svc", "web.json");
  const global = globalDir ? await readSettings(join(globalDir, "web.json")) : null;
  const local = await readSettings(localPath);
  if (global && !global.ok) return global;
  if (!local.ok) return local;
  const merged = { ...global?.settings, ...local.settings };
  if (!merged.search_url) {
    return merged.format && merged.format !== "ddg-html"
      ? { ok: false, error: `format ${merged.format} needs a search_url in web.json` }
      : { ok: true, backend: DEFAULT_BACKEND };
  }
  let url: URL;
  try {
    url = new URL(merged.search_url.replaceAll("{query}", "q"));
  } catch {
    return { ok: false, error: `search_url in web.json is not a URL: ${merged.search_url}` };
  }
  const fromLocal = local.settings.search_url !== undefined;
  if (fromLocal && needsApproval(url)) {
    return {
      ok: false,
      error: `${localPath} points web_search at a private or local host (${url.hostname}); ` +
        "set such a backend in ~/.config/svc/web.json instead",
    };
  }
  return {
    ok: true,
    backend: {
      name: url.hostname,
      template: merged.search_url,
      format: merged.format ?? "searxng",
      trusted: !fromLocal,
    },
  };
}
