import { resolve } from "node:path";
import { loadConfigReport } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { Engine } from "../engine/engine.ts";
import { askTool } from "../engine/ask.ts";
import type { Approver, EngineDeps } from "../engine/context_types.ts";
import { approvalGate, createChatClient, resolveConnection } from "../provider/mod.ts";
import { loadPlugins, type LoadResult } from "../plugin/load.ts";
import { ToolRegistry } from "../tool/registry.ts";

/** Flags every headless front-end shares. */
export interface EngineFlags {
  path?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  approveModel?: boolean;
}

export interface Composed {
  engine: Engine;
  /** Whether the worktree is trusted (config/trust.ts). */
  trusted: boolean;
  config: Config;
  worktree: string;
  plugins: LoadResult;
  warnings: string[];
}

/** Canonical worktree: `--path`, else the directory svc was launched from. */
export function resolveWorktree(path?: string): string {
  const base = path ?? Deno.cwd();
  try {
    return Deno.realPathSync(resolve(base));
  } catch {
    throw new Error(`Worktree ${base} does not exist`);
  }
}

/**
 * Builds a headless engine from config and flags: config layers, plugins, provider connection,
 * the model approval gate and the tool registry.
 */
export async function composeEngine(
  flags: EngineFlags,
  options: { approve?: Approver; headless?: boolean } = {},
): Promise<Composed> {
  const worktree = resolveWorktree(flags.path);
  const overrides: Record<string, unknown> = {};
  if (flags.provider) overrides.provider = flags.provider;
  if (flags.model) overrides.model = flags.model;
  if (flags.baseUrl) overrides.base_url = flags.baseUrl;
  if (flags.provider && !flags.baseUrl) overrides.base_url = undefined;
  const loaded = await loadConfigReport(worktree, overrides);
  const { config, trusted } = loaded;
  const plugins = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
  const connection = await resolveConnection(config, plugins.providers, {
    untrustedBaseUrlFile: loaded.untrustedBaseUrlFile,
  });
  await approvalGate({
    provider: connection.provider,
    model: connection.model,
    explicit: Boolean(flags.model),
    referencedByType: false,
    unfolded: connection.unfolded,
    approveModel: Boolean(flags.approveModel),
  });
  const registry = new ToolRegistry();
  registry.add(askTool);
  for (const tool of plugins.tools) registry.add(tool);
  const client = createChatClient({
    provider: connection.provider,
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    headers: connection.headers,
    streamRetries: config.stream_retries,
    retryDelay: config.stream_retry_delay,
    idleTimeout: config.stream_idle_timeout,
  });
  const deps: EngineDeps = {
    config,
    worktree,
    client,
    model: connection.model,
    provider: connection.provider,
    registry,
    headless: options.headless ?? true,
    approve: options.approve,
    trusted,
  };
  const warnings = [
    ...loaded.warnings,
    ...connection.warnings,
    ...plugins.plugins.filter((p) => p.status === "errored" || p.status === "skipped")
      .map((p) => `plugin ${p.name}: ${p.message}`),
  ];
  return { engine: new Engine(deps), trusted, config, worktree, plugins, warnings };
}
