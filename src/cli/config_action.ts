import { dirname } from "node:path";
import { configPaths, flattenConfig, loadConfigReport, readConfigFile } from "../config/load.ts";
import { type Config, ConfigSchema, REMOVED_KEYS } from "../config/schema.ts";
import { DEFAULT_ACTIONS } from "../shared/types.ts";
import { unfoldModelRef } from "../provider/detect.ts";
import { modelsPath, recordApproval } from "../provider/models_file.ts";
import { withFileLock, writeFileAtomic } from "../util/atomic.ts";
import { resolveWorktree } from "../runtime/worktree.ts";

/** Flags shared by the `svc config` subcommands. */
export interface ConfigScope {
  global?: boolean;
  path?: string;
  json?: boolean;
}

const KEYS = Object.keys(ConfigSchema.shape);

/** `svc config list`: the effective configuration, or the raw global file with --global. */
export async function list(flags: ConfigScope): Promise<void> {
  const worktree = resolveWorktree(flags.path);
  const value = flags.global
    ? await readConfigFile(configPaths(worktree).global)
    : await effective(worktree);
  if (flags.json) console.log(JSON.stringify(value, null, 2));
  else for (const [k, v] of Object.entries(value)) console.log(`${k} = ${JSON.stringify(v)}`);
}

/** `svc config get <key>`. */
export async function get(key: string, flags: ConfigScope): Promise<void> {
  const worktree = resolveWorktree(flags.path);
  const config = flags.global
    ? await readConfigFile(configPaths(worktree).global)
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
 * is the operator approving it: it is recorded in models.json, so headless runs accept it.
 */
export async function set(key: string, value: string, flags: ConfigScope): Promise<void> {
  const parsed = parseValue(value);
  await edit(flags, key, parsed);
  if (key !== "model" || typeof parsed !== "string") return;
  const worktree = resolveWorktree(flags.path);
  const { config, trusted } = await loadConfigReport(worktree);
  // Plugin providers unfold refs too; loaded only here, as svc run would load them.
  const { loadPlugins } = await import("../plugin/load.ts");
  const plugins = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
  const ref = unfoldModelRef(parsed.trim(), plugins.providers);
  if (!ref.provider) return;
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

function checkKey(key: string): void {
  if (key in REMOVED_KEYS) throw new Error(`key "${key}" was removed: ${REMOVED_KEYS[key]}`);
  if (KEYS.includes(key) || splitPermission(key)[1]) return;
  throw new Error(`unknown key "${key}"; run "svc config list" to see every key`);
}

function splitPermission(key: string): [string, string | undefined] {
  const match = /^tool_permission\.(\w+)$/.exec(key);
  return match ? ["tool_permission", match[1]] : [key, undefined];
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** Read-modify-write of one file under its lock; the result is validated before it is written. */
async function edit(flags: ConfigScope, key: string, value: unknown): Promise<void> {
  checkKey(key);
  const worktree = resolveWorktree(flags.path);
  const path = flags.global ? configPaths(worktree).global : configPaths(worktree).local;
  await writeConfigKeys(path, { [key]: value });
  console.log(value === undefined ? `unset ${key} in ${path}` : `set ${key} in ${path}`);
  if (!flags.global) {
    // Say at once when the worktree's trust keeps the new value from applying.
    const { warnings } = await loadConfigReport(worktree);
    for (const warning of warnings) console.error(`note: ${warning}`);
  }
}

/**
 * Sets (or, for undefined values, removes) keys in one config file under its lock, validating
 * the whole file before the atomic write. `tool_permission.<category>` keys edit the object.
 */
export async function writeConfigKeys(
  path: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await withFileLock(path, async () => {
    const current = await readConfigFile(path);
    for (const [key, value] of Object.entries(patch)) {
      const [head, sub] = splitPermission(key);
      if (sub) {
        const perms = { ...(current[head] as Record<string, unknown> ?? {}) };
        if (value === undefined) delete perms[sub];
        else perms[sub] = value;
        current[head] = perms;
      } else if (value === undefined) delete current[key];
      else current[key] = value;
    }
    const next = flattenConfig(current);
    const checked = ConfigSchema.safeParse(next);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new Error(`invalid value for "${issue.path.join(".")}": ${issue.message}`);
    }
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  });
}
