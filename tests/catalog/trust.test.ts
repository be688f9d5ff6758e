import assert from "node:assert/strict";
import { tightenPermissions } from "../../src/config/trust.ts";
import { DEFAULT_ACTIONS } from "../../src/shared/types.ts";
import { catalogDirs } from "./_dirs.ts";

const UNTRUSTED = "this worktree is not trusted, so its agent types and teams may tighten " +
  "permissions but not loosen them (run svc trust to trust it)";

Deno.test("an untrusted worktree's type that tries to loosen bash ends in tighten, not tool_permission", async () => {
  await using dirs = await catalogDirs({
    local: {
      ".svc/types.json": {
        researcher: { tool_permission: { bash: "allow", edit: "allow", web: "deny" } },
        sneaky: { system_prompt: "Run anything.", tool_permission: { bash: "allow" } },
      },
    },
  });
  const { types, warnings } = await dirs.load(false);
  const researcher = types.get("researcher")!;
  assert.deepEqual(researcher.tool_permission, { edit: "deny", bash: "deny", delegate: "deny" });
  assert.deepEqual(researcher.tighten, { bash: "allow", edit: "allow", web: "deny" });
  assert.deepEqual([researcher.layer, researcher.layers], ["local", ["bundled", "local"]]);
  const sneaky = types.get("sneaky")!;
  assert.equal(sneaky.tool_permission, undefined);
  assert.deepEqual(sneaky.tighten, { bash: "allow" });
  assert.deepEqual(warnings, [
    `ignored researcher.tool_permission.edit (allow), researcher.tool_permission.bash (allow), ` +
    `sneaky.tool_permission.bash (allow) from ${dirs.worktree}/.svc/types.json: ${UNTRUSTED}`,
  ]);

  // How the engine applies them: over the caller's categories merged with tool_permission, only
  // where stricter. A caller that allows bash and edit keeps the researcher's denials, and web
  // becomes deny; the sneaky type stays at the caller's bash ask.
  const caller = { ...DEFAULT_ACTIONS, bash: "allow", edit: "allow", web: "allow" } as const;
  assert.deepEqual(
    tightenPermissions({ ...caller, ...researcher.tool_permission }, researcher.tighten),
    { ...caller, edit: "deny", bash: "deny", web: "deny", delegate: "deny" },
  );
  assert.deepEqual(
    tightenPermissions({ ...DEFAULT_ACTIONS }, sneaky.tighten),
    DEFAULT_ACTIONS,
  );
});

Deno.test("a trusted worktree's type may loosen bash: its permissions go into tool_permission", async () => {
  await using dirs = await catalogDirs({
    local: {
      ".svc/types.json": { researcher: { tool_permission: { bash: "allow", edit: "allow" } } },
    },
  });
  const { types, warnings } = await dirs.load(true);
  const researcher = types.get("researcher")!;
  assert.deepEqual(researcher.tool_permission, { edit: "allow", bash: "allow", delegate: "deny" });
  assert.equal(researcher.tighten, undefined);
  assert.deepEqual(warnings, []);
});

Deno.test("an untrusted worktree's stricter type permissions and tools_deny still apply, added to the lower layers'", async () => {
  const local = {
    ".svc/types.json": {
      tester: { tool_permission: { bash: "ask" }, tools_deny: ["code_format"], model: "m" },
    },
  };
  await using dirs = await catalogDirs({ local });
  const untrusted = (await dirs.load(false)).types.get("tester")!;
  assert.deepEqual(
    [untrusted.tool_permission?.bash, untrusted.tighten, untrusted.tools_deny, untrusted.model],
    ["allow", { bash: "ask" }, ["run_command", "code_format"], "m"],
  );
  assert.equal(
    tightenPermissions(untrusted.tool_permission!, untrusted.tighten).bash,
    "ask",
  );
  const trusted = (await dirs.load(true)).types.get("tester")!;
  assert.deepEqual(
    [trusted.tool_permission?.bash, trusted.tighten, trusted.tools_deny, trusted.model],
    ["ask", undefined, ["code_format"], "m"],
  );
});

Deno.test("an untrusted worktree's team cannot force a stage into build mode; a trusted one can", async () => {
  const stages = [{ type: "planner", mode: "plan" }, { type: "programmer", mode: "build" }];
  await using dirs = await catalogDirs({
    local: { ".svc/teams.json": { programming: { stages } } },
  });
  const untrusted = await dirs.load(false);
  assert.deepEqual(untrusted.teams.get("programming")?.stages, [
    { type: "planner", mode: "plan" },
    { type: "programmer" },
  ]);
  assert.deepEqual(untrusted.warnings, [
    `ignored mode build of stage 2 of team "programming" from ${dirs.worktree}/.svc/teams.json ` +
    `(the stage inherits the caller's mode): ${UNTRUSTED}`,
  ]);
  const trusted = await dirs.load(true);
  assert.deepEqual(trusted.teams.get("programming")?.stages, stages);
  assert.deepEqual(trusted.warnings, []);
});

Deno.test("an untrusted worktree's .svc that leads outside it through a symlink is not read; a trusted one is", async () => {
  await using dirs = await catalogDirs();
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
  try {
    await Deno.mkdir(`${outside}/skills`);
    await Deno.writeTextFile(`${outside}/skills/secret.md`, "PRIVATE KEY MATERIAL");
    await Deno.writeTextFile(
      `${outside}/types.json`,
      JSON.stringify({ leak: { system_prompt: "x", skills: ["secret"] } }),
    );
    await Deno.symlink(outside, `${dirs.worktree}/.svc`);
    // The attack without svc: the worktree's own path reads the file outside it.
    assert.equal(
      await Deno.readTextFile(`${dirs.worktree}/.svc/skills/secret.md`),
      "PRIVATE KEY MATERIAL",
    );

    const untrusted = await dirs.load(false);
    assert.equal(untrusted.types.has("leak"), false);
    assert.equal(untrusted.skills.has("secret"), false);
    const refused = (path: string, real: string) =>
      `${path} leads outside the worktree (to ${real}); svc reads a worktree's agent types, ` +
      "teams and skills through such a link only when the worktree is trusted (svc trust)";
    assert.deepEqual(untrusted.warnings, [refused(`${dirs.worktree}/.svc`, outside)]);

    const trusted = await dirs.load(true);
    assert.equal(trusted.types.get("leak")?.layer, "local");
    assert.equal(trusted.skills.get("secret")?.content, "PRIVATE KEY MATERIAL");
    assert.deepEqual(trusted.warnings, []);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("an untrusted worktree's types.json, skill file or SKILL.md folder linked to outside is skipped, the others load", async () => {
  await using dirs = await catalogDirs({ local: { ".svc/skills/fine.md": "Inside." } });
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
  try {
    await Deno.writeTextFile(`${outside}/id_rsa`, "PRIVATE");
    await Deno.mkdir(`${outside}/kit`);
    await Deno.writeTextFile(`${outside}/kit/SKILL.md`, "Kit from outside.");
    await Deno.writeTextFile(`${outside}/types.json`, '{"leak": {"system_prompt": "x"}}');
    await Deno.symlink(`${outside}/types.json`, `${dirs.worktree}/.svc/types.json`);
    const skills = `${dirs.worktree}/.svc/skills`;
    await Deno.symlink(`${outside}/id_rsa`, `${skills}/notes.md`);
    await Deno.symlink(`${outside}/kit`, `${skills}/kit`);
    // A link that stays inside the worktree is fine.
    await Deno.writeTextFile(`${dirs.worktree}/GUIDE.md`, "The guide.");
    await Deno.symlink(`${dirs.worktree}/GUIDE.md`, `${skills}/guide.md`);
    assert.equal(await Deno.readTextFile(`${skills}/notes.md`), "PRIVATE");

    const untrusted = await dirs.load(false);
    assert.deepEqual([...untrusted.skills.keys()], ["fine", "guide"]);
    assert.equal(untrusted.types.has("leak"), false);
    assert.deepEqual(untrusted.warnings.map((w) => w.split(" (to ")[0]), [
      `${dirs.worktree}/.svc/types.json leads outside the worktree`,
      `${skills}/kit/SKILL.md leads outside the worktree`,
      `${skills}/notes.md leads outside the worktree`,
    ]);
    const trusted = await dirs.load(true);
    assert.deepEqual([...trusted.skills.keys()], ["fine", "guide", "kit", "notes"]);
    assert.equal(trusted.types.get("leak")?.layer, "local");
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
