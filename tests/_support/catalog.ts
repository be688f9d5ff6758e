/** In-memory agent catalogs for engine tests (the loader has tests of its own). */
import type { AgentType, Catalog, Skill, Stage, Team } from "../../src/catalog/types.ts";

type TypeSpec = Omit<AgentType, "name" | "layer" | "layers">;

/** A catalog of the given types, teams (stages as type names or stage objects) and skills. */
export function catalogOf(parts: {
  types?: Record<string, TypeSpec>;
  teams?: Record<string, Array<string | Stage>>;
  skills?: Record<string, string>;
}): Catalog {
  const types = new Map<string, AgentType>();
  for (const [name, spec] of Object.entries(parts.types ?? {})) {
    types.set(name, { name, ...spec, layer: "bundled", layers: ["bundled"] });
  }
  const teams = new Map<string, Team>();
  for (const [name, stages] of Object.entries(parts.teams ?? {})) {
    teams.set(name, {
      name,
      stages: stages.map((s) => typeof s === "string" ? { type: s } : s),
      layer: "bundled",
      layers: ["bundled"],
    });
  }
  const skills = new Map<string, Skill>();
  for (const [name, content] of Object.entries(parts.skills ?? {})) {
    skills.set(name, { name, content, layer: "local" });
  }
  return { types, teams, skills, warnings: [] };
}
