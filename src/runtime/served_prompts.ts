import type { Catalog, Team } from "../catalog/types.ts";
import { typePrompt } from "../engine/sub_agent.ts";
import type { Runtime } from "./runtime.ts";

/** The catalog kinds served as prompts: agent types, skills and teams. */
export type PromptKind = "types" | "skills" | "teams";

/** One catalog entry as a prompt's text, or why there is none. */
export type PromptText = { ok: true; text: string; description: string } | {
  ok: false;
  message: string;
};

/**
 * The worktree's catalogs as prompt material for serving (MCP `prompts/get`): the names of a
 * kind (for completion and descriptions) and an entry's text. The catalog is the runtime's,
 * loaded once; serving never reloads it, so its lists do not change while a server runs.
 */
export interface ServedPrompts {
  /** The entry names of `kind`, sorted. */
  names(kind: PromptKind): Promise<string[]>;
  /** The text of entry `name` of `kind` (for a type or team, with the task appended). */
  text(kind: PromptKind, { name, task }: { name: string; task?: string }): Promise<PromptText>;
}

/** Prompt material from the runtime's catalog (agent types with their skills, skills, teams). */
export function servedPrompts(runtime: Runtime): ServedPrompts {
  return {
    async names(kind) {
      return [...(await runtime.catalog())[kind].keys()].sort();
    },
    async text(kind, { name, task }) {
      const catalog = await runtime.catalog();
      const found = promptOf(catalog, kind, name);
      if (!found) {
        const known = [...catalog[kind].keys()].sort().join(", ") || "none";
        return { ok: false, message: `No ${singular(kind)} named "${name}"; available: ${known}` };
      }
      const text = task?.trim() ? `${found.text}\n\n## Task\n\n${task.trim()}` : found.text;
      return { ok: true, text, description: found.description };
    },
  };
}

function promptOf(
  catalog: Catalog,
  kind: PromptKind,
  name: string,
): { text: string; description: string } | undefined {
  if (kind === "types") {
    const type = catalog.types.get(name);
    return type && { text: typePrompt(type, catalog), description: type.description ?? name };
  }
  if (kind === "skills") {
    const skill = catalog.skills.get(name);
    return skill && { text: skill.content.trim(), description: skill.description ?? name };
  }
  const team = catalog.teams.get(name);
  return team && { text: teamBrief(team), description: team.description ?? name };
}

/** A team as a brief: its stages in order, each with its agent type, mode and hints. */
function teamBrief(team: Team): string {
  const stages = team.stages.map((stage, i) => {
    const parts = [`${i + 1}. ${stage.type}${stage.mode ? ` (${stage.mode})` : ""}`];
    if (stage.task_hint) parts.push(`   task hint: ${stage.task_hint}`);
    if (stage.handoff_note) parts.push(`   handoff: ${stage.handoff_note}`);
    return parts.join("\n");
  });
  const about = team.description ? ` (${team.description})` : "";
  return `Team ${team.name}${about}: work through these stages in order, each handing its ` +
    `result to the next:\n\n${stages.join("\n")}`;
}

function singular(kind: PromptKind): string {
  return kind === "types" ? "agent type" : kind === "skills" ? "skill" : "team";
}
