/** The `/connect` flow shared by `svc connect` and the REPL: plan, probe, save. */
import type { ProviderDef } from "../shared/types.ts";
import { detectIn } from "./detect.ts";
import { listModels } from "./unary.ts";
import { loadProviders, type RegistryOptions, setEntry } from "./registry_file.ts";
import { providerTable, trimBaseUrl } from "./table.ts";

/** Where a connect target points. `custom` entries are stored with their address. */
export interface ConnectPlan {
  provider: string;
  baseUrl: string;
  custom: boolean;
  /** The stored key, "" when none. */
  storedKey: string;
  headers?: Record<string, string>;
}

/** What `planConnect` needs besides the target; `dir` is the provider registry's folder. */
export interface PlanConnectOptions extends RegistryOptions {
  /** The name of a custom provider; derived from the host when absent. */
  name?: string;
  /** Providers the plugins define, beside the built-in ones. */
  pluginProviders?: readonly ProviderDef[];
}

/**
 * Resolves a `/connect` target: a known provider name (its stored or default address), or a URL
 * (a known host or a plugin's default address selects that provider; anything else becomes a
 * custom provider named `name`, or a name derived from the host).
 */
export async function planConnect(
  target: string,
  { name, pluginProviders = [], ...options }: PlanConnectOptions = {},
): Promise<ConnectPlan> {
  const table = providerTable(pluginProviders);
  const { entries } = await loadProviders(options);
  const isUrl = /^https?:\/\//i.test(target);
  if (!isUrl) {
    const info = table.get(target);
    const stored = entries[target];
    const baseUrl = stored?.base_url ?? info?.baseUrl;
    if (!baseUrl) {
      const known = [...table.keys()].filter((id) => table.get(id)?.baseUrl).join(", ");
      throw new Error(`Unknown provider ${target}: choose one of ${known}, or give a URL`);
    }
    return {
      provider: target,
      baseUrl: trimBaseUrl(baseUrl),
      custom: !info,
      storedKey: stored?.api_key ?? "",
      ...(info?.headers ? { headers: info.headers } : {}),
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Error(`${target} is not a valid URL`);
  }
  const baseUrl = trimBaseUrl(url.href);
  const detected = detectIn(table, baseUrl);
  const provider = name ?? (detected !== "generic" ? detected : hostName(url));
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(provider)) {
    throw new Error(`Provider name ${provider} must be letters, digits, . _ or -`);
  }
  const info = table.get(provider);
  if (info?.baseUrl === undefined && table.has(provider) && provider === "generic") {
    throw new Error("generic is reserved; give the connection a name: svc connect <url> <name>");
  }
  return {
    provider,
    baseUrl,
    custom: !info,
    storedKey: entries[provider]?.api_key ?? "",
    ...(info?.headers ? { headers: info.headers } : {}),
  };
}

/** `GET /v1/models` against the planned connection; never throws. */
export async function probeConnection(
  plan: ConnectPlan,
  apiKey: string,
  signal?: AbortSignal,
): Promise<{ ok: true; models: string[] } | { ok: false; error: string }> {
  try {
    const models = await listModels({
      provider: plan.provider,
      baseUrl: plan.baseUrl,
      apiKey,
      headers: plan.headers,
    }, signal);
    return { ok: true, models };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** Records the provider entry (key, and address when it is not the default). */
export async function saveConnection(
  plan: ConnectPlan,
  apiKey: string,
  options: RegistryOptions = {},
): Promise<{ warning?: string }> {
  return await setEntry(plan.provider, {
    api_key: apiKey,
    base_url: plan.baseUrl,
    ...(plan.custom ? { custom: true as const } : {}),
  }, options);
}

function hostName(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/[^A-Za-z0-9]+/g, "-");
  return `${host}${url.port ? `-${url.port}` : ""}`.replace(/^-+|-+$/g, "").toLowerCase();
}
