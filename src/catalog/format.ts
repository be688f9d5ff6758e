/** Catalog entries as text: the tables of `svc types|skills|teams list` and `/type`, `/skill`, `/team`. */
import type { AgentType, Catalog, Skill, Team } from "./types.ts";
import { table } from "../util/text_table.ts";

export type CatalogKind = "types" | "skills" | "teams";

/** The singular of each kind, for messages. */
export const ONE: Record<CatalogKind, string> = {
  types: "agent type",
  skills: "skill",
  teams: "team",
};

/** Every entry of one catalog as an aligned table. */
export function catalogTable(kind: CatalogKind, catalog: Catalog): string {
  const entries = [...catalog[kind].values()];
  const rows = kind === "types"
    ? (entries as AgentType[]).map((t) => [t.name, layers(t), t.model ?? "-", t.description])
    : kind === "teams"
    ? (entries as Team[]).map((t) => [
      t.name,
      layers(t),
      t.stages.map((s) => s.type).join(" > "),
      t.description,
    ])
    : (entries as Skill[]).map((s) => [s.name, s.layer, (s.tags ?? []).join(", "), s.description]);
  const head = kind === "types"
    ? ["NAME", "LAYER", "MODEL", "DESCRIPTION"]
    : kind === "teams"
    ? ["NAME", "LAYER", "STAGES", "DESCRIPTION"]
    : ["NAME", "LAYER", "TAGS", "DESCRIPTION"];
  return table(head, rows.map((row) => row.map((cell) => cell || "-")));
}

/** One entry in full; undefined when there is no such entry. */
export function showEntry(
  catalog: Catalog,
  { kind, name }: { kind: CatalogKind; name: string },
): string | undefined {
  const entry = catalog[kind].get(name);
  if (!entry) return undefined;
  if (kind === "types") return showType(entry as AgentType, catalog);
  if (kind === "teams") return showTeam(entry as Team, catalog);
  return showSkill(entry as Skill);
}

/** The contributing layers, lowest first: `bundled+global` is a bundled entry changed globally. */
function layers(entry: { layer: string; layers: string[] }): string {
  return entry.layers.length ? entry.layers.join("+") : entry.layer;
}

function actions(permissions: Record<string, string> | undefined): string {
  const pairs = Object.entries(permissions ?? {});
  return pairs.length ? pairs.map(([key, value]) => `${key} ${value}`).join(", ") : "-";
}

function showType(type: AgentType, catalog: Catalog): string {
  const skills = (type.skills ?? []).map((name) =>
    catalog.skills.has(name) ? name : `${name} (not found, skipped)`
  );
  const lines = [
    `name: ${type.name}`,
    `layer: ${type.layer} (layers: ${type.layers.join(", ")})`,
    `description: ${type.description ?? "-"}`,
    `model: ${type.model ?? "- (the caller's)"}`,
    `tool_permission: ${actions(type.tool_permission)}`,
  ];
  if (type.tighten) {
    lines.push(
      `tighten: ${actions(type.tighten)} (from an untrusted worktree: applied only where stricter)`,
    );
  }
  lines.push(
    `tools_deny: ${type.tools_deny?.length ? type.tools_deny.join(", ") : "-"}`,
    `skills: ${skills.length ? skills.join(", ") : "-"}`,
    "system_prompt:",
    "",
    type.system_prompt,
  );
  return lines.join("\n");
}

function showTeam(team: Team, catalog: Catalog): string {
  const lines = [
    `name: ${team.name}`,
    `layer: ${team.layer} (layers: ${team.layers.join(", ")})`,
    `description: ${team.description ?? "-"}`,
    `tags: ${team.tags?.length ? team.tags.join(", ") : "-"}`,
    "stages:",
  ];
  team.stages.forEach((stage, index) => {
    const known = catalog.types.has(stage.type) ? "" : " (unknown agent type)";
    lines.push(`  ${index + 1}. ${stage.type}${known}, mode ${stage.mode ?? "inherited"}`);
    if (stage.task_hint) lines.push(`     task_hint: ${stage.task_hint}`);
    if (stage.handoff_note) lines.push(`     handoff_note: ${stage.handoff_note}`);
  });
  return lines.join("\n");
}

function showSkill(skill: Skill): string {
  return [
    `name: ${skill.name}`,
    `layer: ${skill.layer}`,
    `path: ${skill.path ?? "-"}`,
    `description: ${skill.description ?? "-"}`,
    `tags: ${skill.tags?.length ? skill.tags.join(", ") : "-"}`,
    "content:",
    "",
    skill.content,
  ].join("\n");
}
