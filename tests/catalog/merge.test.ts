import assert from "node:assert/strict";
import { BUNDLED_TEAMS, BUNDLED_TYPES } from "../../src/catalog/mod.ts";
import { TeamEntrySchema, TypeEntrySchema } from "../../src/catalog/schema.ts";
import type { AgentType, Team } from "../../src/catalog/types.ts";
import type { AgentTypeDef, TeamDef } from "../../src/plugin/api.ts";
import { catalogDirs, type Layout } from "./_dirs.ts";

const bundled = (name: string) => BUNDLED_TYPES[name];

Deno.test("the bundled layer holds the eight agent types and the two teams, valid under the file schemas", async () => {
  await using dirs = await catalogDirs();
  const catalog = await dirs.load(true);
  assert.deepEqual([...catalog.types.keys()], [
    "code-reviewer",
    "editor",
    "planner",
    "programmer",
    "referencer",
    "researcher",
    "tester",
    "writer",
  ]);
  assert.deepEqual([...catalog.teams.keys()], ["programming", "writing"]);
  assert.deepEqual(catalog.warnings, []);
  for (const [name, entry] of Object.entries(BUNDLED_TYPES)) {
    assert.equal(TypeEntrySchema.safeParse(entry).success, true, name);
  }
  for (const [name, entry] of Object.entries(BUNDLED_TEAMS)) {
    assert.equal(TeamEntrySchema.safeParse(entry).success, true, name);
  }
  const stages = (name: string) => catalog.teams.get(name)?.stages.map((s) => [s.type, s.mode]);
  assert.deepEqual(stages("writing"), [
    ["researcher", undefined],
    ["writer", "build"],
    ["referencer", "build"],
    ["editor", "build"],
  ]);
  assert.deepEqual(stages("programming"), [
    ["planner", "plan"],
    ["programmer", "build"],
    ["tester", "build"],
    ["code-reviewer", undefined],
  ]);
});

Deno.test("the bundled reviewer and planner cannot edit or run commands, the tester may run only the project's commands", async () => {
  await using dirs = await catalogDirs();
  const { types } = await dirs.load(true);
  const perms = (name: string) => [types.get(name)?.tool_permission, types.get(name)?.tools_deny];
  assert.deepEqual(perms("code-reviewer"), [
    { edit: "deny", bash: "deny", delegate: "deny", web: "deny" },
    undefined,
  ]);
  assert.deepEqual(perms("planner"), [
    { edit: "deny", bash: "deny", delegate: "deny", web: "deny" },
    undefined,
  ]);
  assert.deepEqual(perms("researcher"), [
    { edit: "deny", bash: "deny", delegate: "deny" },
    undefined,
  ]);
  assert.deepEqual(perms("tester"), [
    { edit: "allow", bash: "allow", web: "deny", delegate: "deny" },
    ["run_command"],
  ]);
  assert.deepEqual(perms("programmer"), [
    { edit: "allow", bash: "allow", web: "deny", delegate: "deny" },
    ["run_command"],
  ]);
  // No bundled type names a model (no approval gate) or allows web or delegate.
  for (const type of types.values()) {
    assert.equal(type.model, undefined, type.name);
    assert.notEqual(type.tool_permission?.web, "allow", type.name);
    assert.equal(type.tool_permission?.delegate, "deny", type.name);
  }
});

/** One row: what the plugin, global and local layers hold, and the type expected afterwards. */
interface TypeCase {
  name: string;
  plugin?: AgentTypeDef[];
  global?: Record<string, unknown>;
  local?: Record<string, unknown>;
  type: string;
  expected: AgentType | undefined;
  warnings?: string[];
}

const typeCases: TypeCase[] = [
  {
    name: "a local type that sets only model keeps the bundled prompt and permissions",
    local: { researcher: { model: "hosted-b/some-model" } },
    type: "researcher",
    expected: {
      name: "researcher",
      system_prompt: bundled("researcher").system_prompt,
      description: bundled("researcher").description,
      tool_permission: { edit: "deny", bash: "deny", delegate: "deny" },
      model: "hosted-b/some-model",
      layer: "local",
      layers: ["bundled", "local"],
    },
  },
  {
    name: "each layer changes one field; tool_permission merges per category",
    plugin: [{ name: "writer", system_prompt: "Plugin writer prompt.", description: "plugged" }],
    global: { writer: { tool_permission: { web: "allow" } } },
    local: { writer: { tool_permission: { edit: "deny" }, skills: ["house-style"] } },
    type: "writer",
    expected: {
      name: "writer",
      system_prompt: "Plugin writer prompt.",
      description: "plugged",
      tool_permission: { edit: "deny", bash: "deny", web: "allow", delegate: "deny" },
      skills: ["house-style"],
      layer: "local",
      layers: ["bundled", "plugin", "global", "local"],
    },
  },
  {
    name: "a type a plugin adds is changed by the global layer, lists replaced whole",
    plugin: [{ name: "translator", system_prompt: "Translate.", skills: ["glossary", "tone"] }],
    global: { translator: { skills: ["glossary-de"], description: "German" } },
    type: "translator",
    expected: {
      name: "translator",
      system_prompt: "Translate.",
      skills: ["glossary-de"],
      description: "German",
      layer: "global",
      layers: ["plugin", "global"],
    },
  },
  {
    name: "a trusted layer replaces tools_deny, so the user may give the tester run_command",
    global: { tester: { tools_deny: [] } },
    type: "tester",
    expected: {
      name: "tester",
      system_prompt: bundled("tester").system_prompt,
      description: bundled("tester").description,
      tool_permission: { edit: "allow", bash: "allow", web: "deny", delegate: "deny" },
      tools_deny: [],
      skills: ["coding-conventions", "testing"],
      layer: "global",
      layers: ["bundled", "global"],
    },
  },
  {
    name: "a new type defined only by the local layer stands alone",
    local: { "api-designer": { system_prompt: "Design APIs.", model: "m1" } },
    type: "api-designer",
    expected: {
      name: "api-designer",
      system_prompt: "Design APIs.",
      model: "m1",
      layer: "local",
      layers: ["local"],
    },
  },
  {
    name: "a new type without a system prompt anywhere is skipped with a warning",
    global: { helper: { model: "m2" } },
    type: "helper",
    expected: undefined,
    warnings: [
      'agent type "helper" (GLOBAL/types.json) has no system_prompt and no lower layer ' +
      "defines one; skipped",
    ],
  },
];

Deno.test("agent types merge per field across the bundled, plugin, global and local layers", async () => {
  for (const row of typeCases) {
    const layout: Layout = { global: {}, local: {} };
    if (row.global) layout.global!["types.json"] = row.global;
    if (row.local) layout.local![".svc/types.json"] = row.local;
    await using dirs = await catalogDirs(layout);
    const catalog = await dirs.load(true, { types: row.plugin });
    assert.deepEqual(catalog.types.get(row.type), row.expected, row.name);
    const warnings = (row.warnings ?? []).map((w) => w.replace("GLOBAL", dirs.globalDir));
    assert.deepEqual(catalog.warnings, warnings, row.name);
  }
});

interface TeamCase {
  name: string;
  plugin?: TeamDef[];
  global?: Record<string, unknown>;
  local?: Record<string, unknown>;
  team: string;
  expected: Team | undefined;
}

const programming = BUNDLED_TEAMS.programming;

const teamCases: TeamCase[] = [
  {
    name: "a global team's stages replace the bundled stages wholesale",
    global: { programming: { stages: ["planner", { type: "programmer", task_hint: "Go." }] } },
    team: "programming",
    expected: {
      name: "programming",
      stages: [{ type: "planner" }, { type: "programmer", task_hint: "Go." }],
      description: programming.description,
      tags: ["code"],
      layer: "global",
      layers: ["bundled", "global"],
    },
  },
  {
    name: "a local team that sets only description keeps the stages of the layer below",
    plugin: [{ name: "docs", stages: ["researcher", "writer"], tags: ["a"] }],
    global: { docs: { stages: [{ type: "writer", mode: "build" }, "editor"] } },
    local: { docs: { description: "Docs team" } },
    team: "docs",
    expected: {
      name: "docs",
      stages: [{ type: "writer", mode: "build" }, { type: "editor" }],
      tags: ["a"],
      description: "Docs team",
      layer: "local",
      layers: ["plugin", "global", "local"],
    },
  },
  {
    name: "a plugin team's string stages are expanded to objects",
    plugin: [{ name: "review", stages: ["code-reviewer"] }],
    team: "review",
    expected: {
      name: "review",
      stages: [{ type: "code-reviewer" }],
      layer: "plugin",
      layers: ["plugin"],
    },
  },
];

Deno.test("teams replace stages wholesale while their other fields merge per field", async () => {
  for (const row of teamCases) {
    const layout: Layout = { global: {}, local: {} };
    if (row.global) layout.global!["teams.json"] = row.global;
    if (row.local) layout.local![".svc/teams.json"] = row.local;
    await using dirs = await catalogDirs(layout);
    const catalog = await dirs.load(true, { teams: row.plugin });
    assert.deepEqual(catalog.teams.get(row.team), row.expected, row.name);
    assert.deepEqual(catalog.warnings, [], row.name);
  }
});

Deno.test("loaded entries are copies: changing one does not change the bundled data", async () => {
  await using dirs = await catalogDirs();
  const first = await dirs.load(true);
  first.types.get("tester")!.tool_permission!.bash = "deny";
  first.types.get("tester")!.skills!.push("x");
  first.teams.get("writing")!.stages[0].type = "x";
  const second = await dirs.load(true);
  assert.equal(second.types.get("tester")!.tool_permission!.bash, "allow");
  assert.deepEqual(second.types.get("tester")!.skills, ["coding-conventions", "testing"]);
  assert.equal(second.teams.get("writing")!.stages[0].type, "researcher");
});
