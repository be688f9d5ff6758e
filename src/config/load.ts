import { join } from "../util/posix_path.ts";
import type { Config } from "./schema.ts";
import { REMOVED_KEYS } from "./keys.ts";
import { memoized } from "../launch/start_memo.ts";
import { globalConfigDir, localDir } from "../util/dirs.ts";
import { readTextCapped, UnreadableFileError } from "../util/fs.ts";
import { checkPrivate } from "../util/private_file.ts";
import { isTrusted, restrictUntrusted } from "./trust.ts";

/** A configuration file that cannot be used; the message names the file and the key. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Paths of the two configuration files of a worktree. */
export function configPaths(worktree: string): { global: string; local: string } {
  return {
    global: join(globalConfigDir(), "config.json"),
    local: join(localDir(worktree), "config.json"),
  };
}

/** Objects whose members may also be written nested (`{"tools": {"allow": []}}`). */
const NESTED_PREFIXES = [
  "tools",
  "dev",
  "mcp",
  "mcp_server",
  "sandbox",
  "sandbox.filesystem",
  "sandbox.network",
  "limits",
  "approver",
  "context",
];

/** A config file is a few KiB; a bigger one (or a FIFO, or /dev/zero) is refused unread. */
export const CONFIG_MAX_BYTES = 1 << 20;

/**
 * How a config file is read: the global one is `private` (svc's own folder): it is read only when
 * no other user could have written it or its folder, else UnsafeFileError (private_file.ts).
 */
export interface ConfigReadOptions {
  private?: boolean;
}

/**
 * Reads one config file as raw key/values: missing is `{}`; invalid JSON, removed keys and
 * values that fail the schema throw a ConfigError naming the file. The file is never rewritten.
 */
export async function readConfigFile(
  path: string,
  options: ConfigReadOptions = {},
): Promise<Record<string, unknown>> {
  const flat = await readRawConfigFile(path, options);
  for (const key of Object.keys(flat)) {
    if (key in REMOVED_KEYS) {
      throw new ConfigError(
        `Config key "${key}" in ${path} was removed: ${REMOVED_KEYS[key]}; delete the key`,
      );
    }
  }
  const checked = await checkConfig("config_file", flat);
  if (!checked.ok) {
    const { issue } = checked;
    const where = issue.path.length ? `"${issue.path.join(".")}"` : "config";
    const keys = issue.keys?.length ? ` ${issue.keys.join(", ")}` : "";
    throw new ConfigError(`Invalid config in ${path}: ${where}: ${issue.message}${keys}`);
  }
  return flat;
}

/** The first problem zod finds in a config, as plain data. */
interface ConfigIssue {
  path: PropertyKey[];
  message: string;
  /** The unknown keys, for an `unrecognized_keys` issue. */
  keys?: string[];
}

type Checked = { ok: true; config: Config } | { ok: false; issue: ConfigIssue };

/**
 * `ConfigSchema.safeParse(input)` with the result as plain data. A valid input is remembered
 * (start_memo.ts) under `kind`, so an installed svc that has seen the same file or the same
 * merged layers before neither loads zod nor builds the schema.
 */
function checkConfig(kind: string, input: Record<string, unknown>): Promise<Checked> {
  return memoized(kind, {
    input,
    compute: async (): Promise<Checked> => {
      const { ConfigSchema } = await import("./schema.ts");
      const parsed = ConfigSchema.safeParse(input);
      if (parsed.success) return { ok: true, config: parsed.data };
      const issue = parsed.error.issues[0];
      return {
        ok: false,
        issue: {
          path: issue.path,
          message: issue.message,
          ...(issue.code === "unrecognized_keys" ? { keys: issue.keys } : {}),
        },
      };
    },
    keep: (checked) => checked.ok,
  });
}

/**
 * Reads one config file as flat key/values without checking the keys or values (so `svc config`
 * can repair them): missing is `{}`; a file that is not a JSON object throws a ConfigError that
 * names the file and the fix. The file is never rewritten.
 */
export async function readRawConfigFile(
  path: string,
  options: ConfigReadOptions = {},
): Promise<Record<string, unknown>> {
  if (options.private) checkPrivate(path);
  let text: string;
  try {
    text = (await readTextCapped(path, CONFIG_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return {};
    if (err instanceof UnreadableFileError) {
      throw new ConfigError(`Config file ${path} is ${err.message}; fix or remove it`);
    }
    throw new ConfigError(`Cannot read config file ${path}: ${(err as Error).message}`);
  }
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw brokenFile(path, `is not valid JSON: ${(err as Error).message}`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw brokenFile(path, "must hold a JSON object");
  }
  return flattenConfig(raw as Record<string, unknown>);
}

/** A config file svc cannot read as an object: what is wrong, and the two ways out. */
function brokenFile(path: string, problem: string): ConfigError {
  return new ConfigError(
    `Config file ${path} ${problem}. Fix it by hand, or move it aside (mv ${path} ` +
      `${path}.broken) and svc config set starts a new one; svc never overwrites it`,
  );
}

/** Folds nested spellings into the flat dotted keys of the schema. */
export function flattenConfig(raw: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  const entries = Object.entries(raw);
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i];
    if (
      NESTED_PREFIXES.includes(key) && value && typeof value === "object" && !Array.isArray(value)
    ) {
      // `{"sandbox": {"network": {...}}}` unfolds level by level, in place.
      const inner = Object.entries(value).map((
        [sub, v],
      ): [string, unknown] => [`${key}.${sub}`, v]);
      entries.splice(i + 1, 0, ...inner);
    } else if (key === "tool_permission.bash_allow") {
      const perms = (flat.tool_permission ?? {}) as Record<string, unknown>;
      flat.tool_permission = { ...perms, bash_allow: value };
    } else if (key === "tool_permission" && value && typeof value === "object") {
      flat.tool_permission = { ...(flat.tool_permission as object ?? {}), ...value };
    } else {
      flat[key] = value;
    }
  }
  return flat;
}

/**
 * Merges raw layers, later winning; `tool_permission` merges per category, and `hooks` per event
 * (a trusted worktree's hooks run after the user's).
 */
export function mergeLayers(...layers: Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (key === "tool_permission") {
        merged[key] = { ...(merged[key] as object ?? {}), ...(value as object) };
      } else if (key === "hooks" && isRecord(merged[key]) && isRecord(value)) {
        const hooks: Record<string, unknown> = { ...merged[key] };
        for (const [event, groups] of Object.entries(value)) {
          const before = hooks[event];
          hooks[event] = Array.isArray(before) && Array.isArray(groups)
            ? [...before, ...groups]
            : groups;
        }
        merged[key] = hooks;
      } else {
        merged[key] = value;
      }
    }
  }
  return merged;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

/** A loaded configuration and what the user should be told about it. */
export interface LoadedConfig {
  config: Config;
  /** Whether the worktree is trusted (see trust.ts): its local plugins may load. */
  trusted: boolean;
  /** Local keys dropped because the worktree is untrusted, as one message (or none). */
  warnings: string[];
  /**
   * The base address comes from an untrusted worktree's config: a stored API key may be sent to
   * it only when it is the address the key was stored for.
   */
  untrustedBaseUrlFile?: string;
  /**
   * The keys an untrusted worktree's own `.svc/config.json` set and the trust rules kept (none
   * when trusted): a tool asks before it runs a command one of them names (`dev.*_cmd`).
   */
  worktreeKeys: string[];
  /**
   * The `base_url` and `provider` set in the same layer as the effective `model` (the flags being
   * one layer): whether they name the server a `provider/model` ref belongs to is decided where
   * the provider table is known (resolveModelRef's `refStays`). Undefined when no layer sets model.
   */
  modelWith?: { base_url?: string; provider?: string };
}

/** The base_url and provider of the highest layer that sets `model` (LoadedConfig.modelWith). */
function modelLayer(layers: Record<string, unknown>[]): Pick<LoadedConfig, "modelWith"> {
  const text = (value: unknown) => typeof value === "string" && value.trim() ? value : undefined;
  const layer = layers.findLast((l) => text(l.model));
  if (!layer) return {};
  const base_url = text(layer.base_url), provider = text(layer.provider);
  return {
    modelWith: { ...(base_url ? { base_url } : {}), ...(provider ? { provider } : {}) },
  };
}

/**
 * Loads global then local config (local wins) and applies every default. In a worktree that is
 * not trusted, the local file may only tighten the policy; what it would loosen is dropped and
 * named in `warnings`.
 */
export async function loadConfigReport(
  worktree: string,
  overrides: Record<string, unknown> = {},
): Promise<LoadedConfig> {
  const paths = configPaths(worktree);
  const [global, local, trusted] = await Promise.all([
    readConfigFile(paths.global, { private: true }),
    readConfigFile(paths.local),
    isTrusted(worktree),
  ]);
  const warnings: string[] = [];
  let localLayer = local;
  let worktreeKeys: string[] = [];
  if (!trusted) {
    const { layer, ignored } = restrictUntrusted(local, global);
    localLayer = layer;
    worktreeKeys = Object.keys(layer).filter((key) => !(key in overrides));
    if (ignored.length) {
      warnings.push(
        `ignored ${ignored.join(", ")} from ${paths.local}: this worktree is not trusted, so ` +
          `its config may tighten svc's policy but not loosen it (run svc trust to trust it)`,
      );
    }
  }
  const flags = flattenConfig(overrides);
  const merged = mergeLayers(global, localLayer, flags);
  const parsed = await checkConfig("config", merged);
  if (!parsed.ok) {
    const { issue } = parsed;
    throw new ConfigError(`Invalid config: "${issue.path.join(".")}": ${issue.message}`);
  }
  const untrusted = !trusted && "base_url" in local && !("base_url" in overrides);
  return {
    config: parsed.config,
    trusted,
    warnings,
    ...(untrusted ? { untrustedBaseUrlFile: paths.local } : {}),
    worktreeKeys,
    ...modelLayer([global, localLayer, flags]),
  };
}
