/**
 * Merging catalog layers. Agent types merge per field (`tool_permission` and `tighten` per
 * category, every other field replaced, lists included); a team's `stages` are replaced
 * wholesale, its other fields per field. Layers are applied lowest first.
 */
import { stricterAction } from "../config/trust.ts";
import type { BashLevel, Category, CategoryLevels } from "../shared/types.ts";
import type { TeamEntry, TypeEntry } from "./schema.ts";
import type { AgentType, Layer, Stage, Team } from "./types.ts";

/** One layer's entry for one name, and where it came from (a file path or a plugin). */
export interface Patch<E> {
  name: string;
  layer: Layer;
  source: string;
  entry: E;
}

/**
 * A type patch of an untrusted worktree carries what may only tighten instead: `tighten`
 * (per category, the stricter action kept) and `tools_deny_add` (added to the list, never
 * replacing it).
 */
export type TypePatch = Patch<
  TypeEntry & { tighten?: CategoryLevels; tools_deny_add?: string[] }
>;

function addLayer(layers: Layer[], layer: Layer): Layer[] {
  return layers.includes(layer) ? layers : [...layers, layer];
}

/** Merges type patches (lowest layer first); a type left without a system prompt is dropped. */
export function mergeTypes(
  patches: readonly TypePatch[],
  warnings: string[],
): Map<string, AgentType> {
  const merged = new Map<string, AgentType>();
  const sources = new Map<string, string[]>();
  for (const { name, layer, source, entry } of patches) {
    const current: AgentType = merged.get(name) ??
      { name, system_prompt: "", layer, layers: [] };
    const next: AgentType = { ...current, layer, layers: addLayer(current.layers, layer) };
    if (entry.system_prompt !== undefined) next.system_prompt = entry.system_prompt;
    if (entry.model !== undefined) next.model = entry.model;
    if (entry.description !== undefined) next.description = entry.description;
    if (entry.skills !== undefined) next.skills = [...entry.skills];
    if (entry.tool_permission) {
      next.tool_permission = { ...current.tool_permission, ...entry.tool_permission };
    }
    if (entry.tighten) next.tighten = stricterOf(current.tighten, entry.tighten);
    if (entry.tools_deny) next.tools_deny = [...new Set(entry.tools_deny)];
    if (entry.tools_deny_add) {
      next.tools_deny = [...new Set([...(current.tools_deny ?? []), ...entry.tools_deny_add])];
    }
    merged.set(name, next);
    sources.set(name, [...(sources.get(name) ?? []), source]);
  }
  for (const [name, type] of merged) {
    if (type.system_prompt) continue;
    merged.delete(name);
    warnings.push(
      `agent type "${name}" (${sources.get(name)?.join(", ")}) has no system_prompt and no ` +
        "lower layer defines one; skipped",
    );
  }
  return merged;
}

function stricterOf(
  a: CategoryLevels = {},
  b: CategoryLevels,
): CategoryLevels {
  const result = { ...a };
  for (const [key, action] of Object.entries(b) as Array<[Category, BashLevel]>) {
    const level = result[key] ? stricterAction(result[key], action) : action;
    (result as Record<Category, BashLevel>)[key] = level;
  }
  return result;
}

/** A stage as the catalog holds it: the string shorthand expanded. */
export function toStage(stage: NonNullable<TeamEntry["stages"]>[number]): Stage {
  return typeof stage === "string" ? { type: stage } : { ...stage };
}

/** Merges team patches (lowest layer first); a team left without stages is dropped. */
export function mergeTeams(
  patches: readonly Patch<TeamEntry>[],
  warnings: string[],
): Map<string, Team> {
  const merged = new Map<string, Team>();
  const sources = new Map<string, string[]>();
  for (const { name, layer, source, entry } of patches) {
    const current: Team = merged.get(name) ?? { name, stages: [], layer, layers: [] };
    const next: Team = { ...current, layer, layers: addLayer(current.layers, layer) };
    if (entry.stages !== undefined) next.stages = entry.stages.map(toStage);
    if (entry.description !== undefined) next.description = entry.description;
    if (entry.tags !== undefined) next.tags = [...entry.tags];
    merged.set(name, next);
    sources.set(name, [...(sources.get(name) ?? []), source]);
  }
  for (const [name, team] of merged) {
    if (team.stages.length) continue;
    merged.delete(name);
    warnings.push(
      `team "${name}" (${sources.get(name)?.join(", ")}) has no stages and no lower layer ` +
        "defines them; skipped",
    );
  }
  return merged;
}
