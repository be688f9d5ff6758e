/** Editing config files: key checks and the locked, validated write of `svc config` and `/config`. */
import { dirname } from "../util/posix_path.ts";
import { type ConfigReadOptions, flattenConfig, readRawConfigFile } from "./load.ts";
import { ConfigSchema, REMOVED_KEYS } from "./schema.ts";
import { withFileLock, writeFileAtomic } from "../util/atomic.ts";

const KEYS = Object.keys(ConfigSchema.shape);

/** Throws when `key` is not a config key (a removed one says why). */
export function checkKey(key: string): void {
  if (key in REMOVED_KEYS) throw new Error(`key "${key}" was removed: ${REMOVED_KEYS[key]}`);
  if (KEYS.includes(key) || splitPermission(key)[1]) return;
  throw new Error(`unknown key "${key}"; run "svc config list" to see every key`);
}

/** `tool_permission.<category>` as its object key and category. */
export function splitPermission(key: string): [string, string | undefined] {
  const match = /^tool_permission\.(\w+)$/.exec(key);
  return match ? ["tool_permission", match[1]] : [key, undefined];
}

/** A value as typed: JSON when it parses, else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sets (or, for undefined values, removes) keys in one config file under its lock, validating
 * the edited keys before the atomic write. `tool_permission.<category>` keys edit the object.
 * Returns the keys to remove that were not set and the problems the file already had in other
 * keys (kept, so each can be fixed in turn); when nothing changes, nothing is written. A
 * `private` file (the global one) is read only when no other user could have written it.
 */
export async function writeConfigKeys(
  path: string,
  patch: Record<string, unknown>,
  options: ConfigReadOptions = {},
): Promise<{ missing: string[]; problems: string[] }> {
  const count = Object.keys(patch).length;
  if (Object.values(patch).every((value) => value === undefined)) {
    // Only removals: a file without those keys is left alone (not even its folder is made).
    const missing = applyPatch(await readRawConfigFile(path, options), patch);
    if (missing.length === count) return { missing, problems: [] };
  }
  return await withFileLock(path, async () => {
    const current = await readRawConfigFile(path, options);
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
