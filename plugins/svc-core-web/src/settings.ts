/**
 * The plugin's own settings file, `web.json`, read from `~/.config/svc/` and `<worktree>/.svc/`
 * (local keys win): `{"search_url": "http://host/search?q={query}&format=json", "format":
 * "searxng" | "ddg-html"}`. A search backend on a private or loopback host is accepted only from
 * the global file, because tools inside the worktree could otherwise rewrite the local one. The
 * local file counts only in a trusted worktree (`svc trust`); otherwise it came with the
 * repository and could send every query to a server of its choosing.
 */
import { join } from "../../../src/plugin/api.ts";
import {
  type ArgsOf,
  loadZod,
  readTextCapped,
  UnreadableFileError,
  type Zod,
} from "../../../src/plugin/api.ts";
import { needsApproval } from "./target.ts";

/** web.json holds two keys; anything bigger is not one. */
const SETTINGS_MAX_BYTES = 64 * 1024;

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

/** The schema of web.json, built when a file is there to check (zod loads on first use). */
const webSettingsSchema = (z: Zod) =>
  z.strictObject({
    search_url: z.string().refine((s) => s.includes("{query}"), "must contain {query}").optional(),
    format: z.enum(["ddg-html", "searxng"]).optional(),
  });
type WebSettings = ArgsOf<typeof webSettingsSchema>;

type Loaded = { ok: true; settings: WebSettings } | { ok: false; error: string };

async function readSettings(path: string): Promise<Loaded> {
  let text: string;
  try {
    text = (await readTextCapped(path, SETTINGS_MAX_BYTES)).text;
  } catch (err) {
    // Missing, or not readable under a plugin sandbox without read permission: defaults apply.
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) {
      return { ok: true, settings: {} };
    }
    if (err instanceof UnreadableFileError) {
      return { ok: false, error: `${path} is ${err.message}` };
    }
    return { ok: false, error: `Could not read ${path}: ${(err as Error).message}` };
  }
  const schema = webSettingsSchema(await loadZod());
  try {
    const parsed = schema.safeParse(JSON.parse(text));
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

/**
 * The search backend configured for `worktree`, or the DuckDuckGo default. In an untrusted
 * worktree the local file is not read; `note` says so when there is one.
 */
export async function loadBackend(
  worktree: string,
  globalDir: string | null = defaultGlobalDir(),
  trusted = false,
): Promise<{ ok: true; backend: SearchBackend; note?: string } | { ok: false; error: string }> {
  const localPath = join(worktree, ".svc", "web.json");
  const global = globalDir ? await readSettings(join(globalDir, "web.json")) : null;
  if (global && !global.ok) return global;
  if (!trusted) {
    const present = await Deno.lstat(localPath).then(() => true, () => false);
    const loaded = fromSettings(global?.settings ?? {}, {}, localPath);
    if (!present || !loaded.ok) return loaded;
    return {
      ...loaded,
      note: `${localPath} was not used: this worktree is not trusted (svc trust)`,
    };
  }
  const local = await readSettings(localPath);
  if (!local.ok) return local;
  return fromSettings(global?.settings ?? {}, local.settings, localPath);
}

/** The backend of merged settings; local keys win, a local private host is refused. */
function fromSettings(
  global: WebSettings,
  local: WebSettings,
  localPath: string,
): { ok: true; backend: SearchBackend } | { ok: false; error: string } {
  const merged = { ...global, ...local };
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
  const fromLocal = local.search_url !== undefined;
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
