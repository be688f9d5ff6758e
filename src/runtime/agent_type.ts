import { loadCatalog } from "../catalog/load.ts";
import type { Catalog } from "../catalog/types.ts";
import type { EngineOverrides } from "../engine/deps.ts";
import { typeOverrides, typePrompt } from "../engine/sub_agent.ts";
import type { Runtime } from "./runtime.ts";

/** An agent type's engine overrides, or the message saying the catalog has no such type. */
export type AgentTypeLookup =
  | { kind: "found"; overrides: EngineOverrides }
  | { kind: "unknown"; message: string };

/**
 * The engine overrides of the agent type `name` (its prompt, model, permissions, merged the way a
 * sub-agent's are), or `unknown` with a message listing the types the catalog has.
 */
export function agentTypeOverrides(
  runtime: Runtime,
  { catalog, name }: { catalog: Catalog; name: string },
): AgentTypeLookup {
  const type = catalog.types.get(name);
  if (!type) {
    const known = [...catalog.types.keys()].sort().join(", ") || "none";
    return { kind: "unknown", message: `unknown type "${name}"; available types: ${known}` };
  }
  return {
    kind: "found",
    overrides: typeOverrides(runtime.config.tool_permission, type, { catalog, depth: 0 }),
  };
}

/**
 * The runtime's worktree catalog read again from its files now (with the runtime's plugins and
 * trust), for a job run: its approval is bound to the type as the files are now, not as they were
 * when a long-running daemon loaded its runtime.
 */
export function freshCatalog(runtime: Runtime): Promise<Catalog> {
  return loadCatalog({
    worktree: runtime.worktree,
    trusted: runtime.trusted,
    plugins: runtime.plugins,
  });
}

/**
 * What the agent type `name` resolves to from the files of `worktree` (bundled, global and local
 * layers, merged as the worktree's trust has them; plugin types are not loaded): its prompt with
 * skills, model, tool permissions, tightenings and tools_deny; `{unknown}` when there is none.
 * A job's approval is bound to it.
 */
export async function agentTypeMaterial(
  worktree: string,
  { name, trusted }: { name: string; trusted: boolean },
): Promise<Record<string, unknown>> {
  const catalog = await loadCatalog({ worktree, trusted });
  const type = catalog.types.get(name);
  if (!type) return { unknown: name };
  return {
    prompt: typePrompt(type, catalog),
    model: type.model,
    tool_permission: type.tool_permission,
    tighten: type.tighten,
    tools_deny: type.tools_deny,
  };
}
