/** The one resolution of a model ref: config keys provider, base_url and model to a backend. */
import type { Config } from "../config/schema.ts";
import { detectIn, type ProviderTable, unfoldIn } from "./detect.ts";
import type { ProviderEntry } from "./registry_file.ts";
import { trimBaseUrl } from "./table.ts";

/** A resolved backend: provider id, base address (trimmed) and bare model id. */
export interface ResolvedModel {
  provider: string;
  baseUrl: string;
  model: string;
  /** The model came from unfolding a `provider/model` ref (the approval gate applies). */
  unfolded: boolean;
  /**
   * Set when the ref moved to its own provider where earlier svc versions kept it on the configured
   * server (a `generic`, custom or `openrouter` connection from another layer): that server, so
   * the caller can say once what changed.
   */
  movedFrom?: { provider: string; baseUrl?: string };
}

const NO_BACKEND =
  "No model backend is configured: run svc connect <provider|url>, pass --base-url " +
  "(or --provider) to svc run, or set base_url or provider in the config";

/**
 * Resolves provider, base address and model from the config keys (model may be a bare id or a
 * `provider/model` ref), the provider table and the entries of providers.json: an unknown
 * provider with a base_url is detected from it; a ref that names a known provider (or a custom
 * one of providers.json) moves to that provider's stored or default address, unless `refStays`
 * (the server was named with the ref: `--base-url`, or base_url or a vendor-id provider such as
 * openrouter in the ref's own config layer), where it is that server's own model id; then the
 * stored or default address and the default model fill what is missing. Without `refStays` the
 * rule of earlier versions applies (a generic, custom or openrouter connection keeps every ref).
 * Throws an Error saying what to set when no base address or model can be found.
 */
export function resolveModelRef(
  config: Pick<Config, "provider" | "base_url" | "model">,
  { table, stored, refStays }: {
    table: ProviderTable;
    stored: Readonly<Record<string, ProviderEntry>>;
    refStays?: boolean;
  },
): ResolvedModel {
  let baseUrl = config.base_url?.trim() ? trimBaseUrl(config.base_url) : undefined;
  let provider = config.provider?.trim() || undefined;
  let model = config.model?.trim() || undefined;
  let unfolded = false;
  let movedFrom: ResolvedModel["movedFrom"];

  if (provider && !table.has(provider) && !stored[provider]?.base_url) {
    if (!baseUrl) {
      const known = [...table.keys()].join(", ");
      throw new Error(`Unknown provider ${provider}: choose one of ${known}, or set base_url`);
    }
    provider = detectIn(table, baseUrl);
  }
  if (!provider && baseUrl) provider = detectIn(table, baseUrl);

  if (model) {
    const ref = unfoldWith(table, stored, model);
    const kept = pinned(provider, baseUrl, table);
    if (ref.provider && ref.provider === provider) {
      model = ref.model;
      unfolded = true;
    } else if (ref.provider && !(refStays ?? kept)) {
      // The ref names another backend: its own stored or default address applies. Earlier
      // versions kept it on a pinned connection, and a custom provider's name in the model id.
      if (provider && (kept || !unfoldIn(table, model).provider)) {
        movedFrom = { provider, ...(baseUrl ? { baseUrl } : {}) };
      }
      provider = ref.provider;
      model = ref.model;
      baseUrl = undefined;
      unfolded = true;
    }
  }
  if (!provider) throw new Error(NO_BACKEND);

  const info = table.get(provider);
  baseUrl ??= stored[provider]?.base_url ?? info?.baseUrl;
  if (!baseUrl) {
    throw new Error(
      `No base address for provider ${provider}: pass --base-url or set base_url in the config`,
    );
  }
  if (!/^https?:\/\/[^/]/i.test(baseUrl) || !URL.canParse(baseUrl)) {
    throw new Error(
      `Base address ${baseUrl} for ${provider} is not an http:// or https:// URL; ` +
        `pass --base-url http://host:port or fix base_url in the config`,
    );
  }
  model ??= info?.defaultModel;
  if (!model) {
    throw new Error(`No model configured for ${provider}: pass --model or set model in the config`);
  }
  return {
    provider,
    baseUrl: trimBaseUrl(baseUrl),
    model,
    unfolded,
    ...(movedFrom ? { movedFrom } : {}),
  };
}

/**
 * Whether what a config layer set next to its `model` names the server a `provider/model` ref
 * belongs to (the ref then stays that server's model id): a `base_url`, or a provider that keeps
 * vendor ids bare (openrouter).
 */
export function namesServer(
  layer: { base_url?: string; provider?: string } | undefined,
  table: ProviderTable,
): boolean {
  if (!layer) return false;
  return Boolean(layer.base_url) || Boolean(table.get(layer.provider ?? "")?.vendorModelIds);
}

/** `unfoldIn`, and a custom provider of providers.json (one with its own address) as a prefix. */
function unfoldWith(
  table: ProviderTable,
  stored: Readonly<Record<string, ProviderEntry>>,
  model: string,
): { provider?: string; model: string } {
  const ref = unfoldIn(table, model);
  if (ref.provider) return ref;
  const slash = model.indexOf("/");
  const name = model.slice(0, slash);
  if (slash <= 0 || slash === model.length - 1 || table.has(name)) return ref;
  return stored[name]?.base_url ? { provider: name, model: model.slice(slash + 1) } : ref;
}

/**
 * Whether `vendor/model` ids stay bare: on aggregators (openrouter) and on generic or custom
 * endpoints given by address, where such ids name the server's own models.
 */
function pinned(
  provider: string | undefined,
  baseUrl: string | undefined,
  table: ProviderTable,
): boolean {
  if (!provider) return false;
  const info = table.get(provider);
  if (info?.vendorModelIds) return true;
  return !info?.baseUrl && Boolean(baseUrl);
}
