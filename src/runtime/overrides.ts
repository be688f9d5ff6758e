import type { Config } from "../config/schema.ts";
import type { EngineOverrides } from "../engine/deps.ts";

/**
 * The effective config of an engine: `config` with the overrides' config-shaped keys applied.
 * tool_permission merges per category; tools.deny entries are added to the config's, never
 * replacing them; system_prompt and mode replace, and so does each limit `limits` sets.
 */
export function applyOverrides(config: Config, overrides: EngineOverrides): Config {
  const deny = overrides["tools.deny"];
  return {
    ...config,
    ...(overrides.system_prompt !== undefined ? { system_prompt: overrides.system_prompt } : {}),
    ...(overrides.mode ? { mode: overrides.mode } : {}),
    tool_permission: overrides.tool_permission
      ? { ...config.tool_permission, ...overrides.tool_permission }
      : config.tool_permission,
    "tools.deny": deny?.length
      ? [...new Set([...config["tools.deny"], ...deny])]
      : config["tools.deny"],
    ...limitKeys(overrides.limits),
  };
}

/** The config keys of a turn's limits that `limits` sets (the others stay as configured). */
function limitKeys(limits: EngineOverrides["limits"] = {}): Partial<Config> {
  const keys: Partial<Config> = {};
  if (limits.max_turns !== undefined) keys["limits.max_turns"] = limits.max_turns;
  if (limits.max_tokens_total !== undefined) {
    keys["limits.max_tokens_total"] = limits.max_tokens_total;
  }
  if (limits.max_cost !== undefined) keys["limits.max_cost"] = limits.max_cost;
  return keys;
}
