import type { Config } from "../config/schema.ts";
import { approvalGate, type Connection, resolveConnection } from "../provider/connect.ts";
import { namesServer } from "../provider/model_ref.ts";
import { firstTime } from "../provider/notices.ts";
import { providerTable } from "../provider/table.ts";
import { createChatClient } from "../provider/sse_client.ts";
import type { ChatClient } from "../provider/types.ts";
import type { ProviderDef } from "../shared/types.ts";

/** Another backend or model than the config's: where it comes from decides the approval gate. */
export interface ModelChoice {
  provider?: string;
  model?: string;
  /** `flag`: an explicit `--model` (approves and records); `type`: named by an agent type or
   * team (refused unless approved or `approveModel`). */
  modelFrom?: "flag" | "type" | "user";
  approveModel?: boolean;
}

/** The interactive question of the model approval gate: approve `provider/model`? */
export type ConfirmModel = (provider: string, model: string) => Promise<boolean>;

/** A resolved connection and its chat client. */
export interface ConnectedModel extends Connection {
  client: ChatClient;
}

/**
 * Resolves provider, base address, model and key (resolveConnection), passes the model
 * approval gate (asking through `confirm` in an interactive session), and opens a chat client
 * with the config's stream settings. `modelFrom: "user"` (the REPL's `/model`) is the user's
 * own choice: a ref is asked about, a bare model id passes like the config's. A ref that names a
 * provider uses that provider unless the server was named with it (`--base-url`, or base_url or
 * openrouter in the ref's own layer: a type's or job's `provider`, the config layer of `model`).
 */
export async function connectModel(
  config: Config,
  providers: readonly ProviderDef[],
  options: ModelChoice & {
    explicit: boolean;
    untrustedBaseUrlFile?: string;
    /** `--base-url` was given: every `provider/model` ref stays that server's model id. */
    explicitBaseUrl: boolean;
    /** What the config layer of the config's own model set next to it (LoadedConfig.modelWith). */
    modelWith?: { base_url?: string; provider?: string };
    /** An interactive session: a model the gate would refuse is asked about instead. */
    confirm?: ConfirmModel;
  },
): Promise<ConnectedModel> {
  const other = Boolean(options.provider || options.model);
  const keepsBaseUrl = !options.provider;
  // A ref stays the server's model id only where the server was named with it (docs/providers.md).
  const refStays = options.explicitBaseUrl ||
    namesServer(
      other ? { provider: options.provider } : options.modelWith,
      providerTable(providers),
    );
  const connection = await resolveConnection(
    {
      provider: options.provider ?? config.provider,
      base_url: keepsBaseUrl ? config.base_url : undefined,
      model: options.model ?? config.model,
    },
    providers,
    {
      ...(keepsBaseUrl ? { untrustedBaseUrlFile: options.untrustedBaseUrlFile } : {}),
      refStays,
    },
  );
  const referencedByType = other && options.modelFrom !== "flag" && options.modelFrom !== "user";
  await approvalGate({
    provider: connection.provider,
    model: connection.model,
    explicit: options.explicit,
    referencedByType,
    approveModel: Boolean(options.approveModel),
    unfolded: connection.unfolded,
    // Only a model the gate guards is asked about (a ref, or one a type or team names).
    interactive: Boolean(options.confirm) && (referencedByType || connection.unfolded),
    confirm: options.confirm,
  });
  // What changed with the ref rule is said once, when a connection that passed the gate is used.
  const { notice } = connection;
  if (notice && await firstTime(`model-ref:${notice}`)) connection.warnings.push(notice);
  const client = createChatClient({
    provider: connection.provider,
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    headers: connection.headers,
    streamRetries: config.stream_retries,
    retryDelay: config.stream_retry_delay,
    idleTimeout: config.stream_idle_timeout,
    pingTimeout: config.stream_ping_timeout,
  });
  return { ...connection, client };
}
