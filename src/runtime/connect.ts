/**
 * The whole `/connect` operation, shared by `svc connect` and the REPL's `/connect`: pick a
 * target, plan, ask for the key, probe (unless connect_check is false), confirm a failed probe
 * ("Save anyway"), save the provider entry, write provider and base_url into the config. The
 * model is never changed. Each front-end answers the questions its own way (`ConnectIO`).
 */
import { configPaths, loadConfigReport } from "../config/load.ts";
import { writeConfigKeys } from "../config/write.ts";
import { loadPlugins } from "../plugin/load.ts";
import { planConnect, probeConnection, saveConnection } from "../provider/connect_flow.ts";
import { CORE_PROVIDERS } from "../provider/table.ts";
import type { ProviderDef } from "../shared/types.ts";

/** How a front-end answers the questions of a connect. Absent questions are not asked. */
export interface ConnectIO {
  /** Bare form: the known providers; resolves to a provider name or a URL. */
  pick?(choices: readonly string[]): Promise<string>;
  /** The API key for `provider`; "" keeps the stored key (or stores none). */
  askKey?(provider: string, stored: boolean): Promise<string>;
  /** The probe failed with `error`: save anyway? */
  confirmSave?(error: string): Promise<boolean>;
}

/** What to connect and where to write. */
export interface ConnectRequest {
  /** Provider name or URL; absent: `io.pick` chooses. */
  target?: string;
  /** Name of a custom URL connection. */
  name?: string;
  worktree: string;
  /** A key given up front (`--key-stdin`); `io.askKey` is then not asked. */
  apiKey?: string;
  /** false: skip the probe (`--no-check`). */
  check?: boolean;
  /** Save even when the probe fails (`--save-anyway`). */
  saveAnyway?: boolean;
  /** Write provider and base_url into the global config instead of the worktree's. */
  global?: boolean;
  /** Plugin providers, when the caller has them loaded; else loaded here. */
  providers?: readonly ProviderDef[];
}

/** What a connect did. */
export interface ConnectOutcome {
  provider: string;
  base_url: string;
  key_stored: boolean;
  checked: boolean;
  /** Why the probe did not run ("" when it ran). */
  skipped: string;
  probe_error: string | null;
  models: string[];
  /** The config file that got provider and base_url. */
  config: string;
  warnings: string[];
}

/** The providers a picker offers: core ones with a default address, then plugin providers. */
export function connectChoices(providers: readonly ProviderDef[]): string[] {
  const core = CORE_PROVIDERS.filter((p) => p.baseUrl).map((p) => p.id);
  return [...core, ...providers.map((p) => p.id).filter((id) => !core.includes(id))];
}

/** A picker answer: a number of `choices` (1-based), a name or a URL; null when empty or out of range. */
export function resolvePick(answer: string, choices: readonly string[]): string | null {
  const text = answer.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return choices[Number(text) - 1] ?? null;
  return text;
}

/** Runs a connect; throws an Error saying what went wrong and that nothing was saved. */
export async function connectProvider(
  request: ConnectRequest,
  io: ConnectIO = {},
): Promise<ConnectOutcome> {
  const { worktree } = request;
  const { config, trusted } = await loadConfigReport(worktree);
  let providers = request.providers;
  if (!providers) {
    const loaded = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
    loaded.close(); // only their providers are needed
    providers = loaded.providers;
  }
  let target = request.target;
  if (!target) {
    if (!io.pick) throw new Error("name a provider or URL: connect <provider|url> [name]");
    target = await io.pick(connectChoices(providers));
  }
  const plan = await planConnect(target, { name: request.name, pluginProviders: providers });
  let apiKey = request.apiKey ?? plan.storedKey;
  if (request.apiKey === undefined && io.askKey) {
    const typed = (await io.askKey(plan.provider, Boolean(plan.storedKey))).trim();
    if (typed) apiKey = typed;
  }
  const skipped = request.check === false
    ? "--no-check"
    : !config.connect_check
    ? "connect_check is false"
    : "";
  let models: string[] = [];
  let probeError: string | null = null;
  if (!skipped) {
    const probe = await probeConnection(plan, apiKey);
    if (probe.ok) models = probe.models;
    else if (request.saveAnyway || (io.confirmSave && await io.confirmSave(probe.error))) {
      probeError = probe.error;
    } else {
      throw new Error(`${probe.error}; nothing was saved`);
    }
  }
  const saved = await saveConnection(plan, apiKey);
  const paths = configPaths(worktree);
  const configPath = request.global ? paths.global : paths.local;
  await writeConfigKeys(configPath, { provider: plan.provider, base_url: plan.baseUrl }, {
    private: request.global,
  });
  return {
    provider: plan.provider,
    base_url: plan.baseUrl,
    key_stored: Boolean(apiKey),
    checked: !skipped,
    skipped,
    probe_error: probeError,
    models,
    config: configPath,
    warnings: saved.warning ? [saved.warning] : [],
  };
}

/** One line saying what a connect did, for both front-ends. */
export function connectSummary(outcome: ConnectOutcome): string {
  const where = `${outcome.provider} at ${outcome.base_url}`;
  const written = `provider and base_url written to ${outcome.config}`;
  const line = outcome.probe_error !== null
    ? `Saved ${where}, but the probe failed: ${outcome.probe_error}; ${written}`
    : `Connected ${where} (${
      outcome.checked ? `${outcome.models.length} models` : `not checked: ${outcome.skipped}`
    }); ${written}`;
  return outcome.key_stored ? line : `${line}\nNo API key stored (fine for local servers)`;
}
