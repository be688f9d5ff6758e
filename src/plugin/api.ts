/**
 * The API handed to plugins. A plugin's entry module (manifest `entry`, default `mod.ts`) exports
 * any of these hooks; each receives a registrar and may be async. Plugins import only this file
 * and `src/tool/types.ts`.
 */
import type { Tool } from "../tool/types.ts";
export type { AskRequest, Tool, ToolContext, ToolOutput } from "../tool/types.ts";
export { bashAllowed } from "../policy/bash_allow.ts";

/** A provider added by a plugin: id, default base address and default model. */
export interface ProviderDef {
  id: string;
  baseUrl: string;
  defaultModel: string;
  /** Extra request headers (never the API key, which svc adds). */
  headers?: Record<string, string>;
}

/** A slash command added by a plugin (REPL `/name`). */
export interface CommandDef {
  name: string;
  description: string;
  run(args: string, io: { print(text: string): void }): Promise<void>;
}

export interface AgentTypeDef {
  name: string;
  system_prompt: string;
  model?: string;
  tool_permission?: Record<string, unknown>;
  skills?: string[];
  description?: string;
}

export interface TeamDef {
  name: string;
  stages: Array<
    string | { type: string; mode?: string; task_hint?: string; handoff_note?: string }
  >;
  description?: string;
  tags?: string[];
}

export interface SkillDef {
  name: string;
  content: string;
  description?: string;
  tags?: string[];
}

/** A long-running service started by the host (for example the MCP HTTP route). */
export interface ServiceDef {
  name: string;
  /** An HTTP handler mounted by `svc serve` at `path` (exact match). */
  http?: { path: string; handler(request: Request): Promise<Response> };
}

export interface EvalFixtureDef {
  id: string;
  prompt: string;
  files?: Record<string, string>;
  expected?: string[];
  verify?: Record<string, unknown>;
}

/** Registrars passed to the entry hooks, one per hook. */
export interface PluginHooks {
  register_tools?(registry: { add(tool: Tool): void }): void | Promise<void>;
  register_providers?(providers: { add(provider: ProviderDef): void }): void | Promise<void>;
  register_commands?(commands: { add(command: CommandDef): void }): void | Promise<void>;
  register_types?(types: { add(type: AgentTypeDef): void }): void | Promise<void>;
  register_teams?(teams: { add(team: TeamDef): void }): void | Promise<void>;
  register_skills?(skills: { add(skill: SkillDef): void }): void | Promise<void>;
  register_services?(services: { add(service: ServiceDef): void }): void | Promise<void>;
  register_fixtures?(fixtures: { add(fixture: EvalFixtureDef): void }): void | Promise<void>;
}

/** Imports a third-party package lazily; a missing one becomes a readable install hint. */
export async function requirePackage<T>(specifier: string, install: string): Promise<T> {
  try {
    return await import(specifier) as T;
  } catch (err) {
    throw new Error(
      `missing plugin dependency ${specifier} (${
        (err as Error).message.split("\n")[0]
      }); install it with: ${install}`,
    );
  }
}
