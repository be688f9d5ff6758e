/** Fixture plugin: registers a skill and a tool, then register_tools throws. */
import * as z from "zod";
import type { SkillDef, Tool } from "../../../../src/plugin/api.ts";

export function register_tools(registry: { add(tool: Tool): void }): void {
  registry.add({
    name: "thrower_half",
    category: "read",
    description: "Registered before the failure",
    schema: z.object({}),
    run: () => Promise.resolve("half"),
  });
  throw new Error("boom");
}

// Hooks run in API order and stop at the first failure, so this never runs.
export function register_skills(skills: { add(skill: SkillDef): void }): void {
  skills.add({ name: "never", content: "never registered" });
}
