/** `~/.config/svc/providers.json`: one API key (and optional base address) per provider. */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";
import { CORE_PROVIDERS, trimBaseUrl } from "./table.ts";

/** One provider's stored entry; base_url only when it differs from the provider default. */
export interface ProviderEntry {
  api_key?: string;
  base_url?: string;
  /** Created by `/connect <url>`; connects as `generic`. */
  custom?: true;
}

/** Where the file lives; `dir` defaults to `~/.config/svc` (from HOME). */
export interface RegistryOptions {
  dir?: string;
}

/** The loaded registry; a corrupt file yields no entries and a warning naming its path. */
export interface ProviderRegistry {
  path: string;
  entries: Record<string, ProviderEntry>;
  warning?: string;
}

/** Path of providers.json. */
export function providersPath(options: RegistryOptions = {}): string {
  return join(options.dir ?? globalConfigDir(), "providers.json");
}

/**
 * Loads providers.json; never throws for a missing or corrupt file, only (UnsafeFileError) for one
 * another user could have written.
 */
export async function loadProviders(options: RegistryOptions = {}): Promise<ProviderRegistry> {
  const path = providersPath(options);
  const { value, warning } = await readJson(path, { private: true });
  return { path, entries: entriesOf(value), ...(warning ? { warning } : {}) };
}

/** The stored API key of `provider`, or "" when there is none. */
export async function getKey(provider: string, options: RegistryOptions = {}): Promise<string> {
  return (await loadProviders(options)).entries[provider]?.api_key ?? "";
}

/**
 * Merges `entry` into the stored entry of `name` (an empty api_key removes the key) and saves the
 * file atomically with mode 0600. Returns a warning when a corrupt file had to be set aside.
 */
export async function setEntry(
  name: string,
  entry: ProviderEntry,
  options: RegistryOptions & { defaultBaseUrl?: string } = {},
): Promise<{ warning?: string }> {
  const fallback = options.defaultBaseUrl ?? CORE_PROVIDERS.find((p) => p.id === name)?.baseUrl;
  const { warning } = await updateJson(providersPath(options), (current) => {
    const entries = entriesOf(current);
    const next: ProviderEntry = { ...entries[name] };
    if (entry.api_key !== undefined) next.api_key = entry.api_key;
    if (!next.api_key) delete next.api_key;
    if (entry.base_url !== undefined) next.base_url = trimBaseUrl(entry.base_url);
    if (!next.base_url || (fallback && next.base_url === trimBaseUrl(fallback))) {
      delete next.base_url;
    }
    if (entry.custom) next.custom = true;
    return { ...entries, [name]: next };
  }, { mode: 0o600, private: true });
  return warning ? { warning } : {};
}

/** Removes the entry of `name`; returns whether there was one. */
export async function removeEntry(name: string, options: RegistryOptions = {}): Promise<boolean> {
  let existed = false;
  await updateJson(providersPath(options), (current) => {
    const entries = entriesOf(current);
    existed = name in entries;
    delete entries[name];
    return entries;
  }, { mode: 0o600, private: true });
  return existed;
}

/** Well-formed entries of a parsed file; anything else is dropped. */
function entriesOf(value: unknown): Record<string, ProviderEntry> {
  const out: Record<string, ProviderEntry> = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [name, raw] of Object.entries(value)) {
    if (!raw || typeof raw !== "object") continue;
    const r = raw as Record<string, unknown>;
    const entry: ProviderEntry = {};
    if (typeof r.api_key === "string" && r.api_key) entry.api_key = r.api_key;
    if (typeof r.base_url === "string" && r.base_url) entry.base_url = r.base_url;
    if (r.custom === true) entry.custom = true;
    out[name] = entry;
  }
  return out;
}
