/**
 * The actions of `svc types`, `svc skills` and `svc teams`: the worktree's catalog through its
 * runtime, as a table, one entry in full, or JSON. Warnings (broken files) go to stderr.
 */
import type { AgentType, Catalog, Skill, Team } from "../catalog/types.ts";
import { Runtime } from "../runtime/runtime.ts";
import { table } from "./table.ts";

export type CatalogKind = "types" | "skills" | "teams";

/** Flags of every catalog command. */
export interface CatalogFlags {
  json?: boolean;
  path?: string;
}

const ONE: Record<CatalogKind, string> = { types: "agent type", skills: "skill", teams: "team" };

async function load(flags: CatalogFlags): Promise<Catalog> {
  const runtime = await Runtime.load({ path: flags.path });
  // The runtime's warnings include the catalog's.
  for (const warning of runtime.warnings) console.error(`warning: ${warning}`);
  return await runtime.catalog();
}

/** Prints every entry of one catalog. */
export async function list(kind: CatalogKind, flags: CatalogFlags): Promise<void> {
  const catalog = await load(flags);
  const entries = [...catalog[kind].values()];
  if (flags.json) {
    console.log(JSON.stringify(entries, null, 2));
    return;
  }
  if (!entries.length) {
    console.log(`No ${kind} found (see svc ${kind} --help)`);
    return;
  }
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
  console.log(table(head, rows.map((row) => row.map((cell) => cell || "-"))));
}

/** Prints one entry in full; an unknown name fails with the names there are. */
export async function show(kind: CatalogKind, name: string, flags: CatalogFlags): Promise<void> {
  const catalog = await load(flags);
  const entry = catalog[kind].get(name);
  if (!entry) {
    const names = [...catalog[kind].keys()];
    throw new Error(
      `unknown ${ONE[kind]} "${name}"; available: ${names.length ? names.join(", ") : "none"}`,
    );
  }
  if (flags.json) console.log(JSON.stringify(entry, null, 2));
  else if (kind === "types") console.log(showType(entry as AgentType, catalog));
  else if (kind === "teams") console.log(showTeam(entry as Team, catalog));
  else console.log(showSkill(entry as Skill));
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
