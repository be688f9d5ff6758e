import type {
  AgentTypeDef,
  CommandDef,
  EvalFixtureDef,
  PluginHooks,
  ProviderDef,
  ServiceDef,
  SkillDef,
  TeamDef,
  Tool,
} from "./api.ts";
import { HOOK_EVENTS, type PluginHookDef } from "../tool/hooks.ts";

/** Everything plugins registered, one list per hook. */
export interface Registrations {
  tools: Tool[];
  providers: ProviderDef[];
  commands: CommandDef[];
  types: AgentTypeDef[];
  teams: TeamDef[];
  skills: SkillDef[];
  services: ServiceDef[];
  fixtures: EvalFixtureDef[];
  /** Hooks for the events of docs/hooks.md (a sandboxed plugin's run in its Worker). */
  hooks: PluginHookDef[];
}

/** A hook name of the plugin API. */
export type HookName = keyof PluginHooks;

/** Every hook, in the order they run, with the list it fills and the field that names an item. */
export const HOOKS: ReadonlyArray<{ hook: HookName; kind: keyof Registrations; key: string }> = [
  { hook: "register_tools", kind: "tools", key: "name" },
  { hook: "register_providers", kind: "providers", key: "id" },
  { hook: "register_commands", kind: "commands", key: "name" },
  { hook: "register_types", kind: "types", key: "name" },
  { hook: "register_teams", kind: "teams", key: "name" },
  { hook: "register_skills", kind: "skills", key: "name" },
  { hook: "register_services", kind: "services", key: "name" },
  { hook: "register_fixtures", kind: "fixtures", key: "id" },
  { hook: "register_hooks", kind: "hooks", key: "event" },
];

/** What one item of each registration list is called in error messages. */
export const ITEM = {
  tools: "tool",
  providers: "provider",
  commands: "command",
  types: "agent type",
  teams: "team",
  skills: "skill",
  services: "service",
  fixtures: "fixture",
  hooks: "hook",
} as const;

/** Empty registration lists. */
export function emptyRegistrations(): Registrations {
  return {
    tools: [],
    providers: [],
    commands: [],
    types: [],
    teams: [],
    skills: [],
    services: [],
    fixtures: [],
    hooks: [],
  };
}

/**
 * A registrar `{add(x)}` filling `list`. `add` rejects items without their naming field (and
 * tools without `run`), so a malformed registration fails the hook. Calls after `seal()` are
 * ignored: a hook cannot add items once it has returned.
 */
export function makeRegistrar(
  kind: keyof Registrations,
  { key, list }: { key: string; list: unknown[] },
) {
  let sealed = false;
  return {
    registrar: {
      add(item: unknown): void {
        if (sealed) return;
        const record = item as Record<string, unknown> | null;
        const id = record && typeof record === "object" ? record[key] : undefined;
        if (typeof id !== "string" || id === "") {
          throw new Error(`Invalid ${ITEM[kind]}: "${key}" must be a non-empty string`);
        }
        if (kind === "tools" && typeof record?.run !== "function") {
          throw new Error(`Invalid tool ${id}: "run" must be a function`);
        }
        if (kind === "hooks") checkHook(id, record!);
        list.push(item);
      },
    },
    seal(): void {
      sealed = true;
    },
  };
}

/** A hook names one of the events and has a `run` callback. */
function checkHook(event: string, record: Record<string, unknown>): void {
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
    throw new Error(`Invalid hook: unknown event ${event}; events: ${HOOK_EVENTS.join(", ")}`);
  }
  if (typeof record.run !== "function") {
    throw new Error(`Invalid hook ${event}: "run" must be a function`);
  }
}

/** Appends every list of `from` to `into`. */
export function mergeRegistrations(into: Registrations, from: Registrations): void {
  for (const { kind } of HOOKS) (into[kind] as unknown[]).push(...(from[kind] ?? []));
}
