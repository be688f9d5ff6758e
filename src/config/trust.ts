/**
 * Trusted worktrees. A repository's `.svc/config.json` and `.svc/plugins/` come with the code you
 * cloned, so until you trust the worktree they may tighten svc's policy but never loosen it:
 * what would loosen it is dropped (and named in a warning) and local plugins are not loaded.
 * Trust lives in `~/.config/svc/trusted.json`, a list of folders, each trusting everything inside.
 */
import { isAbsolute, join } from "../util/path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";
import { canonicalPath, isInside } from "../util/paths.ts";
import { DEFAULT_ACTIONS } from "../shared/types.ts";
import type { Action, Category } from "./schema.ts";

/** Path of the trust list. */
export function trustedPath(): string {
  return join(globalConfigDir(), "trusted.json");
}

/** The trusted folders; a corrupt file trusts nothing and says so. */
export async function loadTrusted(): Promise<{ folders: string[]; warning?: string }> {
  const { value, warning } = await readJson(trustedPath());
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
  });
  return result;
}

const RANK: Record<Action, number> = { deny: 0, ask: 1, allow: 2 };

/** Whether `action` would loosen `base` (allow over ask or deny, ask over deny). */
export function isLooser(action: Action, base: Action): boolean {
  return RANK[action] > RANK[base];
}

/** The stricter of two actions: deny over ask over allow. */
export function stricterAction(a: Action, b: Action): Action {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * `base` with each action of `tighten` applied only where it is stricter: how an untrusted
 * worktree's permissions (a local agent type's `tighten`) meet the ones in force. A category
 * `base` leaves out stands at its default (DEFAULT_ACTIONS) for the comparison.
 */
export function tightenPermissions<T extends Partial<Record<Category, Action>>>(
  base: T,
  tighten: Partial<Record<Category, Action>> = {},
): T {
  const result: Partial<Record<Category, Action>> = { ...base };
  for (const [key, action] of Object.entries(tighten) as Array<[Category, Action]>) {
    result[key] = stricterAction(base[key] ?? DEFAULT_ACTIONS[key], action);
  }
  return result as T;
}

/**
 * An untrusted local layer without what would loosen the policy set by the global layer and the
 * defaults, plus the names of the keys it dropped. Tightening stays: stricter actions, `tools.deny`
 * entries (added to the global ones, never replacing them), a `tools.allow` or `bash_allow` list
 * within the global one (or any, when there is no global list), `mode: plan`. A local `base_url`
 * stays too: resolveConnection withholds stored keys from it (see LoadedConfig).
 */
export function restrictUntrusted(
  local: Record<string, unknown>,
  global: Record<string, unknown>,
): { layer: Record<string, unknown>; ignored: string[] } {
  const layer: Record<string, unknown> = { ...local };
  const ignored: string[] = [];
  const drop = (key: string) => {
    delete layer[key];
    ignored.push(key);
  };
  // Each MCP server entry starts a process.
  if (Array.isArray(layer["mcp.servers"]) && layer["mcp.servers"].length) drop("mcp.servers");
  if (layer.mode === "build" && global.mode === "plan") drop("mode");
  // Searching on every message sends each prompt to the search backend without asking.
  if (layer.web_search === true && global.web_search !== true) drop("web_search");
  if (layer["mcp_server.allow_ask"] === true && global["mcp_server.allow_ask"] === false) {
    drop("mcp_server.allow_ask");
  }
  if ("tools.deny" in layer) {
    const union = [...stringList(global["tools.deny"]), ...stringList(layer["tools.deny"])];
    layer["tools.deny"] = [...new Set(union)];
  }
  if ("tools.allow" in layer) {
    const narrowed = narrow(layer["tools.allow"], global["tools.allow"]);
    layer["tools.allow"] = narrowed.list;
    if (narrowed.loosened) ignored.push("tools.allow");
  }
  const perms = layer.tool_permission as Record<string, unknown> | undefined;
  if (perms && typeof perms === "object") {
    const base = (global.tool_permission ?? {}) as Record<string, unknown>;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(perms)) {
      if (key === "bash_allow") {
        const narrowed = narrow(value, base.bash_allow);
        kept.bash_allow = narrowed.list;
        if (narrowed.loosened) ignored.push("tool_permission.bash_allow");
        continue;
      }
      const baseAction = (base[key] ?? DEFAULT_ACTIONS[key as Category]) as Action | undefined;
      const action = value as Action;
      if (baseAction && action in RANK && isLooser(action, baseAction)) {
        ignored.push(`tool_permission.${key}`);
      } else kept[key] = value;
    }
    layer.tool_permission = kept;
  }
  return { layer, ignored };
}

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

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
