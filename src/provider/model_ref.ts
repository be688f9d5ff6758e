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
}

const NO_BACKEND =
  "No model backend is configured: run svc connect <provider|url>, pass --base-url " +
  "(or --provider) to svc run, or set base_url or provider in the config";

/**
 * Resolves provider, base address and model from the config keys (model may be a bare id or a
 * `provider/model` ref), the provider table and the entries of providers.json: an unknown
 * provider with a base_url is detected from it, a ref of another provider moves to that
 * provider's stored or default address unless the provider keeps vendor ids bare, then the
 * stored or default address and the default model fill what is missing. Throws an Error saying
 * what to set when no base address or model can be found.
 */
export function resolveModelRef(
  config: Pick<Config, "provider" | "base_url" | "model">,
  { table, stored }: {
    table: ProviderTable;
    stored: Readonly<Record<string, ProviderEntry>>;
  },
): ResolvedModel {
  let baseUrl = config.base_url?.trim() ? trimBaseUrl(config.base_url) : undefined;
  let provider = config.provider?.trim() || undefined;
  let model = config.model?.trim() || undefined;
  let unfolded = false;

  if (provider && !table.has(provider) && !stored[provider]?.base_url) {
    if (!baseUrl) {
      const known = [...table.keys()].join(", ");
      throw new Error(`Unknown provider ${provider}: choose one of ${known}, or set base_url`);
    }
    provider = detectIn(table, baseUrl);
  }
  if (!provider && baseUrl) provider = detectIn(table, baseUrl);

  if (model) {
    const ref = unfoldIn(table, model);
    if (ref.provider && ref.provider === provider) {
      model = ref.model;
      unfolded = true;
    } else if (ref.provider && !pinned(provider, baseUrl, table)) {
      // The ref names another backend: its own stored or default address applies.
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
  return { provider, baseUrl: trimBaseUrl(baseUrl), model, unfolded };
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
