/**
 * The agent catalogs: agent types, teams and skills, each merged from four layers (bundled <
 * plugin < global `~/.config/svc/` < local `.svc/`). Loaded by `loadCatalog` (mod.ts); the engine
 * uses them to delegate and run teams, the CLI to list them.
 */
import type { CategoryLevels } from "../shared/types.ts";

/** Where a catalog entry (or the last field that changed it) comes from. */
export type Layer = "bundled" | "plugin" | "global" | "local";

/** An agent type after the four layers are merged per field. */
export interface AgentType {
  name: string;
  system_prompt: string;
  /** A model or `provider/model` ref; overrides the caller's and passes the approval gate. */
  model?: string;
  /** Merged over the caller's categories when delegating (from trusted layers only). */
  tool_permission?: CategoryLevels;
  /**
   * From a local layer of an untrusted worktree: applied only where stricter than what the
   * caller's categories merged with `tool_permission` give (deny > ask > allow).
   */
  tighten?: CategoryLevels;
  /**
   * Tool names the sub-agent may not use, added to the caller's `tools.deny` (never replacing
   * it). Lets a type allow the bash category for `code_test` without `run_command`. Replaced per
   * field by a higher layer, except that an untrusted worktree's list is only added.
   */
  tools_deny?: string[];
  /** Skill names injected as a `## Skills` section; missing ones are skipped silently. */
  skills?: string[];
  description?: string;
  /** The highest layer that defined or changed this type. */
  layer: Layer;
  /** Every layer that contributed, lowest first. */
  layers: Layer[];
}

/** One stage of a team. */
export interface Stage {
  type: string;
  mode?: "plan" | "build";
  task_hint?: string;
  handoff_note?: string;
}

/** A team: ordered stages (replaced wholesale by a higher layer). */
export interface Team {
  name: string;
  stages: Stage[];
  description?: string;
  tags?: string[];
  layer: Layer;
  layers: Layer[];
}

/** A skill: markdown content with optional description and tags. */
export interface Skill {
  name: string;
  content: string;
  description?: string;
  tags?: string[];
  layer: Layer;
  /** The file it was read from (absent for bundled and plugin skills). */
  path?: string;
}

/** The merged catalogs of one worktree. */
export interface Catalog {
  types: ReadonlyMap<string, AgentType>;
  teams: ReadonlyMap<string, Team>;
  skills: ReadonlyMap<string, Skill>;
  /** Problems met while loading (a broken file, with its path); the other layers still load. */
  warnings: string[];
}
