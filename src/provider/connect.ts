/** Resolving a connection from config, and the headless model approval gate. */
import type { Config } from "../config/schema.ts";
import type { ProviderDef } from "../shared/types.ts";
import { isApproved, type ModelsOptions, recordApproval } from "./models_file.ts";
import { resolveModelRef } from "./model_ref.ts";
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
  /**
   * What changed for this configuration with the ref rule (docs/providers.md), to be said once
   * when the connection is used (`notices.ts`); not in `warnings`.
   */
  notice?: string;
}

/**
 * Resolves provider, base address and model (`resolveModelRef`: the config keys provider, base_url
 * and model, providers.json and the provider table) and the key. Throws an Error saying what to
 * set when no base address or model can be found.
 */
export async function resolveConnection(
  config: Pick<Config, "provider" | "base_url" | "model">,
  pluginProviders: readonly ProviderDef[] = [],
  options: RegistryOptions & {
    /** base_url came from this untrusted worktree config: keys go only where they were stored for. */
    untrustedBaseUrlFile?: string;
    /** The server was named with the model: a ref stays its own model id (resolveModelRef). */
    refStays?: boolean;
  } = {},
): Promise<Connection> {
  const table = providerTable(pluginProviders);
  const registry = await loadProviders(options);
  const warnings = registry.warning ? [registry.warning] : [];
  const { provider, baseUrl, model, unfolded, movedFrom } = resolveModelRef(config, {
    table,
    stored: registry.entries,
    refStays: options.refStays,
  });
  const info = table.get(provider);
  const stored = registry.entries[provider];
  let apiKey = stored?.api_key ?? "";
  const home = stored?.base_url ?? info?.baseUrl;
  if (apiKey && options.untrustedBaseUrlFile && (!home || trimBaseUrl(home) !== baseUrl)) {
    apiKey = "";
    warnings.push(
      `not sending the stored ${provider} API key to ${baseUrl}: that address comes ` +
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
    baseUrl,
    model,
    apiKey,
    ...(info?.headers ? { headers: info.headers } : {}),
    unfolded,
    warnings,
    ...(movedFrom ? { notice: movedNote(config.model!, { provider, movedFrom }) } : {}),
  };
}

/** What a configuration that changed with the ref rule (docs/providers.md) now does. */
function movedNote(
  ref: string,
  { provider, movedFrom }: { provider: string; movedFrom: { provider: string; baseUrl?: string } },
): string {
  const server = `${movedFrom.provider}${movedFrom.baseUrl ? ` at ${movedFrom.baseUrl}` : ""}`;
  return `the model ref ${ref} now runs on ${provider} (its stored key, the model approval ` +
    `gate), not on ${server}: a provider/model ref uses the provider it names unless ` +
    `--base-url, or base_url in the ref's own config layer, names the server (docs/providers.md)`;
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
