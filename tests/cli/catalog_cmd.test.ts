import assert from "node:assert/strict";
import { BUNDLED_TYPES } from "../../src/catalog/mod.ts";
import { sandbox, svc } from "../_support/cli.ts";

/** The first two columns (name, layer) of each table row below the header. */
function rows(stdout: string): string[][] {
  return stdout.trimEnd().split("\n").slice(1).map((line) => line.split(/\s{2,}/).slice(0, 2));
}

Deno.test("svc types list shows the eight bundled types with their layer", async () => {
  await using box = await sandbox();
  for (const args of [["types", "list"], ["types"]]) {
    const out = await svc(args, { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stderr], [0, ""], args.join(" "));
    assert.deepEqual(out.stdout.split("\n")[0].split(/\s+/), [
      "NAME",
      "LAYER",
      "MODEL",
      "DESCRIPTION",
    ]);
    assert.deepEqual(
      rows(out.stdout),
      Object.keys(BUNDLED_TYPES).sort().map((name) => [name, "bundled"]),
    );
  }
});

Deno.test("svc types show and --json name the layers a global and a local override come from", async () => {
  await using box = await sandbox({
    ".svc/types.json": JSON.stringify({ researcher: { model: "local-model" } }),
  }, { trusted: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/types.json`,
    JSON.stringify({ researcher: { tool_permission: { web: "allow" } } }),
  );
  const json = await svc(["types", "show", "researcher", "--json"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.deepEqual([json.code, json.stderr], [0, ""]);
  assert.deepEqual(JSON.parse(json.stdout), {
    name: "researcher",
    system_prompt: BUNDLED_TYPES.researcher.system_prompt,
    description: BUNDLED_TYPES.researcher.description,
    tool_permission: { edit: "deny", bash: "deny", delegate: "deny", web: "allow" },
    model: "local-model",
    layer: "local",
    layers: ["bundled", "global", "local"],
  });
  const text = await svc(["types", "show", "researcher", "--path", box.worktree], {
    cwd: box.home,
    env: box.env,
  });
  assert.equal(text.code, 0);
  assert.equal(
    text.stdout,
    [
      "name: researcher",
      "layer: local (layers: bundled, global, local)",
      `description: ${BUNDLED_TYPES.researcher.description}`,
      "model: local-model",
      "tool_permission: edit deny, bash deny, delegate deny, web allow",
      "tools_deny: -",
      "skills: -",
      "system_prompt:",
      "",
      `${BUNDLED_TYPES.researcher.system_prompt}\n`,
    ].join("\n"),
  );
  const list = await svc(["types", "list", "--json"], { cwd: box.worktree, env: box.env });
  const listed = JSON.parse(list.stdout) as Array<{ name: string; layers: string[] }>;
  assert.deepEqual(listed.find((t) => t.name === "researcher")?.layers, [
    "bundled",
    "global",
    "local",
  ]);
});

Deno.test("show of an unknown name exits 1 and lists the available names", async () => {
  await using box = await sandbox({ ".svc/skills/only.md": "Only skill." });
  const cases: Array<[string[], string]> = [
    [
      ["types", "show", "nope"],
      'svc types: unknown agent type "nope"; available: code-reviewer, editor, planner, ' +
      "programmer, referencer, researcher, tester, writer\n",
    ],
    [
      ["teams", "show", "nope"],
      'svc teams: unknown team "nope"; available: programming, writing\n',
    ],
    [["skills", "show", "nope", "--json"], 'svc skills: unknown skill "nope"; available: only\n'],
  ];
  for (const [args, stderr] of cases) {
    const out = await svc(args, { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout, out.stderr], [1, "", stderr], args.join(" "));
  }
});

Deno.test("svc skills lists flat and SKILL.md skills with their layer and shows one in full", async () => {
  await using box = await sandbox({
    ".svc/skills/style-guide.md": "---\ndescription: Project style\ntags: [docs]\n---\nBe brief.\n",
  });
  await Deno.mkdir(`${box.home}/.config/svc/skills/pdf`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/skills/pdf/SKILL.md`,
    "---\nname: pdf\ndescription: Read PDFs\n---\nUse pdftotext.\n",
  );
  const list = await svc(["skills"], { cwd: box.worktree, env: box.env });
  assert.deepEqual([list.code, list.stderr], [0, ""]);
  assert.equal(
    list.stdout,
    "NAME         LAYER   TAGS  DESCRIPTION\n" +
      "pdf          global  -     Read PDFs\n" +
      "style-guide  local   docs  Project style\n",
  );
  const show = await svc(["skills", "show", "pdf"], { cwd: box.worktree, env: box.env });
  assert.equal(
    show.stdout,
    [
      "name: pdf",
      "layer: global",
      `path: ${box.home}/.config/svc/skills/pdf/SKILL.md`,
      "description: Read PDFs",
      "tags: -",
      "content:",
      "",
      "Use pdftotext.\n",
    ].join("\n"),
  );
});

Deno.test("svc teams lists the bundled teams and shows stages with modes; an unknown stage type is marked", async () => {
  await using box = await sandbox({
    ".svc/teams.json": JSON.stringify({
      review: { description: "Just review", stages: ["code-reviewer", { type: "ghost" }] },
    }),
  });
  const list = await svc(["teams", "list"], { cwd: box.worktree, env: box.env });
  assert.deepEqual([list.code, list.stderr], [0, ""]);
  assert.deepEqual(rows(list.stdout), [
    ["programming", "bundled"],
    ["review", "local"],
    ["writing", "bundled"],
  ]);
  const show = await svc(["teams", "show", "review"], { cwd: box.worktree, env: box.env });
  assert.equal(
    show.stdout,
    [
      "name: review",
      "layer: local (layers: local)",
      "description: Just review",
      "tags: -",
      "stages:",
      "  1. code-reviewer, mode inherited",
      "  2. ghost (unknown agent type), mode inherited\n",
    ].join("\n"),
  );
  const json = await svc(["teams", "show", "programming", "--json"], {
    cwd: box.worktree,
    env: box.env,
  });
  const team = JSON.parse(json.stdout);
  assert.deepEqual(team.stages.map((s: { type: string; mode?: string }) => [s.type, s.mode]), [
    ["planner", "plan"],
    ["programmer", "build"],
    ["tester", "build"],
    ["code-reviewer", undefined],
  ]);
});

Deno.test("a broken catalog file is a warning on stderr and the command still lists the rest", async () => {
  await using box = await sandbox({ ".svc/types.json": "{not json" });
  const out = await svc(["types", "--json"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 0);
  assert.equal(
    out.stderr.startsWith(`warning: ${box.worktree}/.svc/types.json is not valid JSON (`),
    true,
    out.stderr,
  );
  assert.equal(out.stderr.endsWith("); skipped\n"), true, out.stderr);
  assert.equal(JSON.parse(out.stdout).length, 8);
});
