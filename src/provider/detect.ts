/** Provider detection from a base address, and `provider/model` ref unfolding. */
import type { ProviderDef } from "../shared/types.ts";
import { type ProviderInfo, providerTable, trimBaseUrl } from "./table.ts";

/** The provider table as detection and unfolding read it (`providerTable`). */
export type ProviderTable = ReadonlyMap<string, ProviderInfo>;

/** A model reference after unfolding; provider and baseUrl only when the prefix is known. */
export interface ModelRef {
  provider?: string;
  baseUrl?: string;
  model: string;
}

/**
 * The provider id for a base address: a plugin provider whose default base equals it, else a known
 * host (the opencode host with path prefix `/zen/go` is `opencode-go`), else `generic`.
 */
export function detectProvider(
  baseUrl: string,
  pluginProviders: readonly ProviderDef[] = [],
): string {
  return detectIn(providerTable(pluginProviders), baseUrl);
}

/** `detectProvider` over a table already built. */
export function detectIn(table: ProviderTable, baseUrl: string): string {
  const trimmed = trimBaseUrl(baseUrl);
  for (const info of table.values()) {
    if (info.origin === "plugin" && info.baseUrl === trimmed) return info.id;
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return "generic";
  }
  const host = url.hostname.toLowerCase();
  if (host === "opencode.ai" || host.endsWith(".opencode.ai")) {
    return /^\/zen\/go(\/|$)/.test(url.pathname) ? "opencode-go" : "opencode";
  }
  for (const info of table.values()) {
    if (info.hosts.some((h) => h.startsWith(".") ? host.endsWith(h) : host === h)) return info.id;
  }
  return "generic";
}

/**
 * Unfolds `provider/model` when the prefix is a known provider (core or plugin) with a default
 * base address; the returned model has the prefix stripped. Anything else is a bare model id.
 */
export function unfoldModelRef(
  ref: string,
  pluginProviders: readonly ProviderDef[] = [],
): ModelRef {
  return unfoldIn(providerTable(pluginProviders), ref);
}

/** `unfoldModelRef` over a table already built. */
export function unfoldIn(table: ProviderTable, ref: string): ModelRef {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return { model: ref };
  const info = table.get(ref.slice(0, slash));
  if (!info?.baseUrl) return { model: ref };
  return { provider: info.id, baseUrl: info.baseUrl, model: ref.slice(slash + 1) };
}
