/** The built-in provider table (DESIGN §3) merged with providers added by plugins. */
import type { ProviderDef } from "../shared/types.ts";

/** One known provider: where it lives, what it runs by default, which hosts identify it. */
export interface ProviderInfo {
  id: string;
  /** Default base address, without `/v1`; absent for `generic`. */
  baseUrl?: string;
  defaultModel?: string;
  /** Host names (exact, or a suffix when starting with ".") that select this provider. */
  hosts: string[];
  /** Extra request headers (never the API key). */
  headers?: Record<string, string>;
  /** Model ids of this provider contain a vendor slash (`vendor/model`), as on aggregators. */
  vendorModelIds?: boolean;
  origin: "core" | "plugin";
}

/** Core providers. Change a default model here; nothing else needs to know. */
export const CORE_PROVIDERS: readonly ProviderInfo[] = [
  {
    id: "dashscope",
    baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode",
    defaultModel: "qwen3-coder-plus",
    hosts: ["dashscope-intl.aliyuncs.com", "dashscope.aliyuncs.com", "dashscope-us.aliyuncs.com"],
    origin: "core",
  },
  {
    id: "openai",
    baseUrl: "https://api.openai.com",
    defaultModel: "gpt-5",
    hosts: ["api.openai.com"],
    origin: "core",
  },
  {
    id: "openrouter",
    baseUrl: "https://openrouter.ai/api",
    defaultModel: "qwen/qwen3-coder",
    hosts: ["openrouter.ai"],
    headers: { "X-Title": "svc" },
    vendorModelIds: true,
    origin: "core",
  },
  {
    id: "anthropic",
    baseUrl: "https://api.anthropic.com",
    defaultModel: "claude-sonnet-4-5",
    hosts: ["api.anthropic.com"],
    origin: "core",
  },
  {
    id: "opencode",
    baseUrl: "https://opencode.ai/zen",
    defaultModel: "qwen3-coder",
    hosts: ["opencode.ai"],
    origin: "core",
  },
  {
    id: "opencode-go",
    baseUrl: "https://opencode.ai/zen/go",
    defaultModel: "kimi-k2.5",
    // Selected by the `/zen/go` path prefix on the opencode host, see detect.ts.
    hosts: [],
    origin: "core",
  },
  { id: "generic", hosts: [], origin: "core" },
];

/** Base addresses of common local servers; they connect as `generic`. */
export const LOCAL_PRESETS: Readonly<Record<string, string>> = {
  ollama: "http://127.0.0.1:11434",
  "llama.cpp": "http://127.0.0.1:8080",
  lmstudio: "http://127.0.0.1:1234",
  vllm: "http://127.0.0.1:8000",
};

/** The provider table: core entries first; a plugin cannot replace a core id. */
export function providerTable(
  pluginProviders: readonly ProviderDef[] = [],
): Map<string, ProviderInfo> {
  const table = new Map(CORE_PROVIDERS.map((p) => [p.id, p]));
  for (const def of pluginProviders) {
    if (table.has(def.id)) continue;
    table.set(def.id, {
      id: def.id,
      baseUrl: trimBaseUrl(def.baseUrl),
      defaultModel: def.defaultModel,
      hosts: [],
      headers: def.headers,
      origin: "plugin",
    });
  }
  return table;
}

/** A base address without trailing slashes or a trailing `/v1` (svc appends `/v1/...`). */
export function trimBaseUrl(url: string): string {
  return url.trim().replace(/\/+$/, "").replace(/\/v1$/, "");
}
