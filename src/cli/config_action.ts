import { configPaths, loadConfigReport, readConfigFile } from "../config/load.ts";
import { type Config, REMOVED_KEYS } from "../config/schema.ts";
import { checkKey, parseValue, splitPermission, writeConfigKeys } from "../config/write.ts";
import { DEFAULT_ACTIONS } from "../shared/types.ts";
import { namesServer, resolveModelRef } from "../provider/model_ref.ts";
import { modelsPath, recordApproval } from "../provider/models_file.ts";
import { loadProviders } from "../provider/registry_file.ts";
import { providerTable } from "../provider/table.ts";
import { resolveWorktree } from "../runtime/worktree.ts";

/** Flags shared by the `svc config` subcommands. */
export interface ConfigScope {
  global?: boolean;
  path?: string;
  json?: boolean;
}

/** `svc config list`: the effective configuration, or the raw global file with --global. */
export async function list(flags: ConfigScope): Promise<void> {
  const worktree = resolveWorktree(flags.path);
  const value = flags.global
    ? await readConfigFile(configPaths(worktree).global, { private: true })
    : await effective(worktree);
  if (flags.json) console.log(JSON.stringify(value, null, 2));
  else for (const [k, v] of Object.entries(value)) console.log(`${k} = ${JSON.stringify(v)}`);
}

/** `svc config get <key>`. */
export async function get(key: string, flags: ConfigScope): Promise<void> {
  const worktree = resolveWorktree(flags.path);
  const config = flags.global
    ? await readConfigFile(configPaths(worktree).global, { private: true })
    : await effective(worktree) as Record<string, unknown>;
  const value = lookup(config, key);
  console.log(flags.json ? JSON.stringify(value ?? null) : formatValue(value));
}

/**
 * The effective config of a worktree, with the policy's default action filled in for every
 * category not set; keys an untrusted worktree may not set are reported.
 */
async function effective(worktree: string): Promise<Config> {
  const { config, warnings } = await loadConfigReport(worktree);
  for (const warning of warnings) console.error(`warning: ${warning}`);
  return { ...config, tool_permission: { ...DEFAULT_ACTIONS, ...config.tool_permission } };
}

/**
 * `svc config set <key> <value>`. Setting `model` to a `provider/model` ref of a known provider
 * is the operator approving it: it is recorded in models.json, so headless runs accept it. The ref
 * resolves as a run would (docs/providers.md): it stays the server's model id when the file it is
 * written to names the server (base_url, or openrouter), and nothing is approved then.
 */
export async function set(key: string, value: string, options: ConfigScope): Promise<void> {
  const parsed = parseValue(value);
  await edit(options, key, parsed);
  if (key !== "model" || typeof parsed !== "string") return;
  const worktree = resolveWorktree(options.path);
  const { config, trusted } = await loadConfigReport(worktree);
  // Plugin providers unfold refs too; loaded only here, as svc run would load them.
  const { loadPlugins } = await import("../plugin/load.ts");
  const plugins = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
  plugins.close(); // only their providers are needed
  const paths = configPaths(worktree);
  const layer = await readConfigFile(options.global ? paths.global : paths.local, {
    private: options.global,
  });
  const table = providerTable(plugins.providers);
  const text = (value: unknown) => typeof value === "string" ? value : undefined;
  let ref;
  try {
    ref = resolveModelRef({ ...config, model: parsed.trim() }, {
      table,
      stored: (await loadProviders()).entries,
      refStays: namesServer(
        { base_url: text(layer.base_url), provider: text(layer.provider) },
        table,
      ),
    });
  } catch {
    return; // no backend yet: nothing to approve
  }
  if (!ref.unfolded) return;
  await recordApproval(ref.provider, ref.model);
  console.error(
    `approved ${ref.provider}/${ref.model} for headless runs (recorded in ${modelsPath()})`,
  );
}

/** `svc config unset <key>`. */
export function unset(key: string, flags: ConfigScope): Promise<void> {
  return edit(flags, key, undefined);
}

/** `svc config path`. */
export function path(flags: ConfigScope): Promise<void> {
  const paths = configPaths(resolveWorktree(flags.path));
  console.log(
    flags.json ? JSON.stringify(paths) : `global ${paths.global}\nlocal  ${paths.local}`,
  );
  return Promise.resolve();
}
function lookup(config: Record<string, unknown>, key: string): unknown {
  checkKey(key);
  if (key in config) return config[key];
  const [head, sub] = splitPermission(key);
  if (sub) return (config[head] as Record<string, unknown> | undefined)?.[sub];
  return undefined;
}

function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/**
 * Read-modify-write of one file under its lock; the result is validated before it is written.
 * Unset accepts any key the file holds (so a removed or unknown key can be taken out) and says
 * so when the key is not set.
 */
async function edit(flags: ConfigScope, key: string, value: unknown): Promise<void> {
  if (value !== undefined) checkKey(key);
  const worktree = resolveWorktree(flags.path);
  const path = flags.global ? configPaths(worktree).global : configPaths(worktree).local;
  const { missing, problems } = await writeConfigKeys(path, { [key]: value }, {
    private: flags.global,
  });
  if (missing.length) {
    if (!(key in REMOVED_KEYS)) checkKey(key);
    console.log(`${key} is not set in ${path}; nothing changed`);
    return;
  }
  console.log(value === undefined ? `unset ${key} in ${path}` : `set ${key} in ${path}`);
  if (problems.length) {
    for (const problem of problems) console.error(`note: ${problem}`);
    return;
  }
  if (!flags.global) {
    // Say at once when the worktree's trust keeps the new value from applying.
    const { warnings } = await loadConfigReport(worktree);
    for (const warning of warnings) console.error(`note: ${warning}`);
  }
}
