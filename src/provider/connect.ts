/** Resolving a connection from config, and the headless model approval gate. */
import type { Config } from "../config/schema.ts";
import type { ProviderDef } from "../shared/types.ts";
import { detectProvider, unfoldModelRef } from "./detect.ts";
import { isApproved, type ModelsOptions, recordApproval } from "./models_file.ts";
import { loadProviders, type RegistryOptions } from "./registry_file.ts";
import { providerTable, trimBaseUrl } from "./table.ts";

/** Everything a ChatClient needs, plus warnings for the user. */
export interface Connection {
  provider: string;
  baseUrl: string;
  model: string;
  /** "" when no key is stored. */
  apiKey: string;
  /** Table or plugin headers for this provider (never the key). */
  headers?: Record<string, string>;
  /** The model came from unfolding a `provider/model` ref (the approval gate applies). */
  unfolded: boolean;
  warnings: string[];
}

const NO_BACKEND =
  "No model backend is configured: run svc connect <provider|url>, pass --base-url " +
  "(or --provider) to svc run, or set base_url or provider in the config";

/**
 * Resolves provider, base address, model and key from the config keys provider, base_url and
 * model, providers.json and the provider table. Throws an Error saying what to set when no base
 * address or model can be found.
 */
export async function resolveConnection(
  config: Pick<Config, "provider" | "base_url" | "model">,
  pluginProviders: readonly ProviderDef[] = [],
  options: RegistryOptions & {
    /** base_url came from this untrusted worktree config: keys go only where they were stored for. */
    untrustedBaseUrlFile?: string;
  } = {},
): Promise<Connection> {
  const table = providerTable(pluginProviders);
  const registry = await loadProviders(options);
  const warnings = registry.warning ? [registry.warning] : [];
  const stored = (name?: string) => (name ? registry.entries[name] : undefined);
  let baseUrl = config.base_url?.trim() ? trimBaseUrl(config.base_url) : undefined;
  let provider = config.provider?.trim() || undefined;
  let model = config.model?.trim() || undefined;
  let unfolded = false;

  if (provider && !table.has(provider) && !stored(provider)?.base_url) {
    if (!baseUrl) {
      const known = [...table.keys()].join(", ");
      throw new Error(`Unknown provider ${provider}: choose one of ${known}, or set base_url`);
    }
    provider = detectProvider(baseUrl, pluginProviders);
  }
  if (!provider && baseUrl) provider = detectProvider(baseUrl, pluginProviders);

  if (model) {
    const ref = unfoldModelRef(model, pluginProviders);
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
  baseUrl ??= stored(provider)?.base_url ?? info?.baseUrl;
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
  let apiKey = stored(provider)?.api_key ?? "";
  const home = stored(provider)?.base_url ?? info?.baseUrl;
  if (
    apiKey && options.untrustedBaseUrlFile &&
    (!home || trimBaseUrl(home) !== trimBaseUrl(baseUrl))
  ) {
    apiKey = "";
    warnings.push(
      `not sending the stored ${provider} API key to ${trimBaseUrl(baseUrl)}: that address comes ` +
        `from ${options.untrustedBaseUrlFile} of a worktree that is not trusted (run svc trust to ` +
        `trust it)`,
    );
  } else if (!apiKey && info?.baseUrl) {
    warnings.push(
      `No API key stored for ${provider}; run /connect ${provider} (or svc connect ${provider}) to add one`,
    );
  }
  return {
    provider,
    baseUrl: trimBaseUrl(baseUrl),
    model,
    apiKey,
    ...(info?.headers ? { headers: info.headers } : {}),
    unfolded,
    warnings,
  };
}

/**
 * Whether `vendor/model` ids stay bare: on aggregators (openrouter) and on generic or custom
 * endpoints given by address, where such ids name the server's own models.
 */
function pinned(
  provider: string | undefined,
  baseUrl: string | undefined,
  table: ReturnType<typeof providerTable>,
): boolean {
  if (!provider) return false;
  const info = table.get(provider);
  if (info?.vendorModelIds) return true;
  return !info?.baseUrl && Boolean(baseUrl);
}

/** Inputs of the model approval gate. */
export interface ApprovalRequest {
  provider: string;
  model: string;
  /** The model came from an explicit `--model`: approve and record it. */
  explicit: boolean;
  /** The model is named only by an agent type or team: refuse it unless approved. */
  referencedByType?: boolean;
  /** The model was unfolded from a `provider/model` ref in the config: refuse it unless approved. */
  unfolded?: boolean;
  /** `--approve-model` was passed. */
  approveModel?: boolean;
  /** Interactive sessions ask through `confirm`; headless ones never block. */
  interactive?: boolean;
  confirm?: (provider: string, model: string) => Promise<boolean>;
}

/**
 * SPEC's model approval gate. An approved model passes (its last_used bumped); an explicit
 * `--model` or `--approve-model` approves and records; an interactive session asks; headless, a
 * model that only an agent type or team names, or one unfolded from a config ref, is refused with
 * an Error starting `model not approved:`. A bare model id from the config passes unrecorded.
 */
export async function approvalGate(
  request: ApprovalRequest,
  options: ModelsOptions = {},
): Promise<void> {
  const { provider, model } = request;
  if (
    request.explicit || request.approveModel || (await isApproved(provider, model, options))
  ) {
    await recordApproval(provider, model, options);
    return;
  }
  if (request.interactive && request.confirm) {
    if (await request.confirm(provider, model)) {
      await recordApproval(provider, model, options);
      return;
    }
    throw new Error(`model not approved: ${provider}/${model} was declined`);
  }
  if (request.referencedByType) {
    throw new Error(
      `model not approved: ${provider}/${model} is named by an agent type or team and is not in ` +
        `models.json; pass --approve-model to approve it`,
    );
  }
  if (request.unfolded) {
    const ref = `${provider}/${model}`;
    throw new Error(
      `model not approved: ${ref} comes from the config and is not in ~/.config/svc/models.json; ` +
        `approve it with svc config set model ${ref}, or pass --model ${ref} or --approve-model`,
    );
  }
}
