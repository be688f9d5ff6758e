import { dirname } from "node:path";
import {
  configPaths,
  flattenConfig,
  loadConfigReport,
  readConfigFile,
  readRawConfigFile,
} from "../config/load.ts";
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
  plugins.close(); // only their providers are needed
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

/**
 * Read-modify-write of one file under its lock; the result is validated before it is written.
 * Unset accepts any key the file holds (so a removed or unknown key can be taken out) and says
 * so when the key is not set.
 */
async function edit(flags: ConfigScope, key: string, value: unknown): Promise<void> {
  if (value !== undefined) checkKey(key);
  const worktree = resolveWorktree(flags.path);
  const path = flags.global ? configPaths(worktree).global : configPaths(worktree).local;
  const { missing, problems } = await writeConfigKeys(path, { [key]: value });
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

/**
 * Sets (or, for undefined values, removes) keys in one config file under its lock, validating
 * the edited keys before the atomic write. `tool_permission.<category>` keys edit the object.
 * Returns the keys to remove that were not set and the problems the file already had in other
 * keys (kept, so each can be fixed in turn); when nothing changes, nothing is written.
 */
export async function writeConfigKeys(
  path: string,
  patch: Record<string, unknown>,
): Promise<{ missing: string[]; problems: string[] }> {
  const count = Object.keys(patch).length;
  if (Object.values(patch).every((value) => value === undefined)) {
    // Only removals: a file without those keys is left alone (not even its folder is made).
    const missing = applyPatch(await readRawConfigFile(path), patch);
    if (missing.length === count) return { missing, problems: [] };
  }
  return await withFileLock(path, async () => {
    const current = await readRawConfigFile(path);
    const missing = applyPatch(current, patch);
    if (missing.length === count) return { missing, problems: [] };
    const next = flattenConfig(current);
    const problems = checkFile(path, next, Object.keys(patch));
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
    return { missing, problems };
  });
}

/** Applies a patch to raw key/values in place; returns the keys to remove that were not set. */
function applyPatch(current: Record<string, unknown>, patch: Record<string, unknown>): string[] {
  const missing: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const [head, sub] = splitPermission(key);
    const holder = sub ? { ...(current[head] as Record<string, unknown> ?? {}) } : current;
    const name = sub ?? key;
    if (value !== undefined) holder[name] = value;
    else if (name in holder) delete holder[name];
    else missing.push(key);
    if (sub) current[head] = holder;
  }
  return missing;
}

/**
 * Throws when an edited key's value is invalid; returns, one line each, what else in the file
 * keeps it from loading and how to fix it.
 */
function checkFile(path: string, next: Record<string, unknown>, edited: string[]): string[] {
  const problems = Object.keys(next).filter((key) => key in REMOVED_KEYS).map((key) =>
    `key "${key}" in ${path} was removed: ${REMOVED_KEYS[key]}; run svc config unset ${key}`
  );
  const checked = ConfigSchema.safeParse(next);
  for (const issue of checked.success ? [] : checked.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys.filter((k) => !(k in REMOVED_KEYS))) {
        problems.push(`unknown key "${key}" in ${path}; run svc config unset ${key}`);
      }
      continue;
    }
    const where = issue.path.join(".");
    const head = String(issue.path[0]);
    const sub = issue.path.length > 1 ? `${head}.${String(issue.path[1])}` : head;
    if (edited.includes(head) || edited.includes(sub)) {
      throw new Error(`invalid value for "${where}": ${issue.message}`);
    }
    const key = head === "tool_permission" ? sub : head;
    problems.push(
      `${path} holds an invalid value for "${where}": ${issue.message}; fix it with ` +
        `svc config set ${key} <value> or svc config unset ${key}`,
    );
  }
  return problems;
}
