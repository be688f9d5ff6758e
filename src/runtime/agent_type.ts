import type { Catalog } from "../catalog/types.ts";
import type { EngineOverrides } from "../engine/deps.ts";
import { typeOverrides } from "../engine/sub_agent.ts";
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
