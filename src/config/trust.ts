/**
 * Trusted worktrees. A repository's `.svc/config.json` and `.svc/plugins/` come with the code you
 * cloned, so until you trust the worktree they may tighten svc's policy but never loosen it:
 * what would loosen it is dropped (and named in a warning) and local plugins are not loaded.
 * Trust lives in `~/.config/svc/trusted.json`, a list of folders, each trusting everything inside.
 */
import { isAbsolute, join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { type CategoryLevels, DEFAULT_ACTIONS } from "../shared/types.ts";
import type { Action, BashLevel, Category } from "./schema.ts";
import { DEFAULT_COMMAND_LIMITS, SANDBOX_MODES, untrustedUse } from "./keys.ts";
import { sizeBytes } from "../util/size.ts";

/** Path of the trust list. */
export function trustedPath(): string {
  return join(globalConfigDir(), "trusted.json");
}

/** The trusted folders; a corrupt file trusts nothing and says so. */
export async function loadTrusted(): Promise<{ folders: string[]; warning?: string }> {
  const { value, warning } = await readJson(trustedPath(), { private: true });
  // Only absolute paths count: an empty or relative entry must not trust the current folder.
  const folders = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && isAbsolute(v))
    : [];
  if (value !== undefined && !Array.isArray(value)) {
    return { folders, warning: `${trustedPath()} is not a JSON list; no worktree is trusted` };
  }
  return warning ? { folders, warning } : { folders };
}

/** Whether `worktree` (after symlinks) is a trusted folder or inside one. */
export async function isTrusted(worktree: string): Promise<boolean> {
  const { folders } = await loadTrusted();
  if (!folders.length) return false;
  const canonical = canonicalPath(Deno.cwd(), worktree);
  return folders.some((folder) => isInside(folder, canonical));
}

/** Adds (or with `remove`, removes) a folder, canonicalized; returns the new list. */
export async function setTrusted(folder: string, remove = false): Promise<string[]> {
  const canonical = remove ? folder : canonicalPath(Deno.cwd(), folder);
  const { result } = await updateJson(trustedPath(), (current) => {
    const list = Array.isArray(current) ? current.filter((v) => typeof v === "string") : [];
    const rest = list.filter((v) => v !== canonical);
    return remove ? rest : [...rest, canonical];
  }, { private: true });
  return result;
}

const RANK: Record<BashLevel, number> = { deny: 0, ask: 1, sandboxed: 1.5, allow: 2 };

/**
 * Whether `action` would loosen `base` (allow over sandboxed, ask or deny; sandboxed over ask or
 * deny; ask over deny).
 */
export function isLooser(action: BashLevel, base: BashLevel): boolean {
  return RANK[action] > RANK[base];
}

/** The stricter of two levels: deny over ask over sandboxed over allow. */
export function stricterAction<T extends BashLevel>(a: T, b: T): T {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * `base` with each action of `tighten` applied only where it is stricter: how an untrusted
 * worktree's permissions (a local agent type's `tighten`) meet the ones in force. A category
 * `base` leaves out stands at its default (DEFAULT_ACTIONS) for the comparison.
 */
export function tightenPermissions<T extends CategoryLevels>(
  base: T,
  tighten: CategoryLevels = {},
): T {
  const result: Partial<Record<Category, BashLevel>> = { ...base };
  for (const [key, action] of Object.entries(tighten) as Array<[Category, BashLevel]>) {
    result[key] = stricterAction(base[key] ?? DEFAULT_ACTIONS[key], action);
  }
  return result as T;
}

/**
 * An untrusted local layer without what would loosen the policy set by the global layer and the
 * defaults, plus the names of the keys it dropped. Each key is used as UNTRUSTED_USE (keys.ts)
 * declares: `set` keys stay, `tighten` keys go through their rule in TIGHTEN, and the rest (`not`,
 * undeclared, or `tighten` without a rule) are dropped. A local `base_url` stays: resolveConnection
 * withholds stored keys from it (see LoadedConfig).
 */
export function restrictUntrusted(
  local: Record<string, unknown>,
  global: Record<string, unknown>,
): { layer: Record<string, unknown>; ignored: string[] } {
  const layer: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(local)) {
    const use = untrustedUse(key);
    const rule = use === "tighten" && Object.hasOwn(TIGHTEN, key) ? TIGHTEN[key] : undefined;
    const kept = use === "set" ? value : rule ? rule(value, global, ignored) : DROP;
    if (kept === DROP) ignored.push(key);
    else layer[key] = kept;
  }
  return { layer, ignored };
}

/** What a TIGHTEN rule returns to drop the whole key (it is then named in `ignored`). */
const DROP = Symbol("drop");

/**
 * How an untrusted local value of a `tighten` key meets the global layer: the value to keep, or
 * DROP. A rule that keeps only part of a value names what it left out in `ignored`.
 */
type Tighten = (value: unknown, global: Record<string, unknown>, ignored: string[]) => unknown;

/** The rule of each `tighten` key of UNTRUSTED_USE; a `tighten` key without one is dropped. */
export const TIGHTEN: Readonly<Record<string, Tighten>> = {
  // Each MCP server entry starts a process: only an empty list (no servers) is taken.
  "mcp.servers": (value) => Array.isArray(value) && value.length ? DROP : value,
  mode: (value, global) => value === "build" && global.mode === "plan" ? DROP : value,
  // Searching on every message sends each prompt to the search backend without asking.
  web_search: (value, global) => value === true && global.web_search !== true ? DROP : value,
  "mcp_server.allow_ask": (value, global) =>
    value === true && global["mcp_server.allow_ask"] === false ? DROP : value,
  // Added to the global entries, never replacing them.
  "tools.deny": (value, global) => [
    ...new Set([...stringList(global["tools.deny"]), ...stringList(value)]),
  ],
  "tools.allow": (value, global, ignored) => {
    const narrowed = narrow(value, global["tools.allow"]);
    if (narrowed.loosened) ignored.push("tools.allow");
    return narrowed.list;
  },
  // The sandbox: never a weaker mode, never turned off where it cannot run, never more writable
  // paths or reachable domains; denials only add up.
  "sandbox.mode": (value, global) =>
    modeRank(value) > modeRank(global["sandbox.mode"] ?? "workspace-write") ? DROP : value,
  "sandbox.failIfUnavailable": (value, global) =>
    value === false && global["sandbox.failIfUnavailable"] !== false ? DROP : value,
  "sandbox.filesystem.allowWrite": (value, global, ignored) =>
    subset(
      value,
      global["sandbox.filesystem.allowWrite"],
      "sandbox.filesystem.allowWrite",
      ignored,
    ),
  "sandbox.network.allowedDomains": (value, global, ignored) =>
    subset(
      value,
      global["sandbox.network.allowedDomains"],
      "sandbox.network.allowedDomains",
      ignored,
    ),
  "sandbox.filesystem.denyWrite": (value, global) =>
    union(global["sandbox.filesystem.denyWrite"], value),
  "sandbox.filesystem.denyRead": (value, global) =>
    union(global["sandbox.filesystem.denyRead"], value),
  "sandbox.network.deniedDomains": (value, global) =>
    union(global["sandbox.network.deniedDomains"], value),
  // Each limit only lower than the user's (or the default).
  "limits.command": (value, global, ignored) => {
    if (!value || typeof value !== "object") return value;
    const base = { ...DEFAULT_COMMAND_LIMITS, ...(global["limits.command"] ?? {}) } as Record<
      string,
      unknown
    >;
    const kept: Record<string, unknown> = {};
    for (const [key, wanted] of Object.entries(value)) {
      const mine = amount(wanted), theirs = base[key] === undefined ? undefined : amount(base[key]);
      if (mine !== undefined && theirs !== undefined && mine > theirs) {
        ignored.push(`limits.command.${key}`);
      } else kept[key] = wanted;
    }
    return kept;
  },
  // A turn's limits: only lower than the user's; a repository cannot lift one the user set.
  "limits.max_turns": (value, global) => lower(value, global["limits.max_turns"]),
  "limits.max_tokens_total": (value, global) => lower(value, global["limits.max_tokens_total"]),
  "limits.max_cost": (value, global) => lower(value, global["limits.max_cost"]),
  // Each action only where it is stricter; bash_allow only within the global list.
  tool_permission: (value, global, ignored) => {
    if (!value || typeof value !== "object") return value;
    const base = (global.tool_permission ?? {}) as Record<string, unknown>;
    const kept: Record<string, unknown> = {};
    for (const [key, wanted] of Object.entries(value)) {
      if (key === "bash_allow") {
        const narrowed = narrow(wanted, base.bash_allow);
        kept.bash_allow = narrowed.list;
        if (narrowed.loosened) ignored.push("tool_permission.bash_allow");
        continue;
      }
      const baseAction = (base[key] ?? DEFAULT_ACTIONS[key as Category]) as Action | undefined;
      const action = wanted as Action;
      if (baseAction && action in RANK && isLooser(action, baseAction)) {
        ignored.push(`tool_permission.${key}`);
      } else kept[key] = wanted;
    }
    return kept;
  },
};

/**
 * A local list that replaces a global one where a non-empty list only ever restricts (a
 * `tools.allow` whitelist, `bash_allow` prefixes). Without a global list any local one only
 * restricts; against one, only its entries survive, and a list that would keep none (or is
 * empty, which lifts the restriction) leaves the global list in place.
 */
function narrow(wanted: unknown, base: unknown): { list: string[]; loosened: boolean } {
  const local = stringList(wanted);
  const global = stringList(base);
  if (!global.length) return { list: local, loosened: false };
  const within = local.filter((entry) => global.includes(entry));
  return {
    list: within.length ? within : global,
    loosened: within.length < local.length || !local.length,
  };
}

/**
 * A local list of things that widen reach (writable paths, reachable domains): only entries the
 * global list already holds are kept, the rest are named in `ignored`.
 */
function subset(wanted: unknown, base: unknown, key: string, ignored: string[]): string[] {
  const global = stringList(base);
  const local = stringList(wanted);
  const within = local.filter((entry) => global.includes(entry));
  if (within.length < local.length) ignored.push(key);
  return within;
}

/** Both lists, each entry once: denials add up. */
function union(base: unknown, wanted: unknown): string[] {
  return [...new Set([...stringList(base), ...stringList(wanted)])];
}

/** Sandbox modes from the strictest; an unknown value ranks weakest so it is dropped. */
function modeRank(mode: unknown): number {
  const rank = SANDBOX_MODES.indexOf(mode as (typeof SANDBOX_MODES)[number]);
  return rank === -1 ? SANDBOX_MODES.length : rank;
}

/** A local limit kept only when the user set none or it is lower than the user's. */
function lower(value: unknown, base: unknown): unknown {
  if (typeof value !== "number") return DROP;
  return typeof base === "number" && value > base ? DROP : value;
}

/** A limit as a number (sizes in bytes), or undefined. */
function amount(value: unknown): number | undefined {
  return typeof value === "number" || typeof value === "string" ? sizeBytes(value) : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
