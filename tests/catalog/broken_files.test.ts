import { loadPromptCommands } from "../../src/catalog/commands.ts";
import assert from "node:assert/strict";
import { CATALOG_MAX_BYTES } from "../../src/catalog/mod.ts";
import { catalogDirs } from "./_dirs.ts";

const mkfifo = (path: string) => new Deno.Command("mkfifo", { args: [path] }).output();

/** The message JSON.parse gives for `text` (the engine's own wording, not svc's). */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("valid JSON");
}

Deno.test("a broken catalog file is reported with its path and what is wrong while the other layers load", async () => {
  await using dirs = await catalogDirs({
    global: {
      "types.json": '{"researcher": {"model": ',
      "teams.json": { docs: { stages: ["writer"] } },
    },
    local: {
      ".svc/types.json": [{ name: "x", system_prompt: "y" }],
      ".svc/teams.json": `{"big": "${"x".repeat(CATALOG_MAX_BYTES)}"}`,
    },
  });
  const local = `${dirs.worktree}/.svc`;
  const catalog = await dirs.load(true, {
    types: [{ name: "plugged", system_prompt: "From a plugin." }],
  });
  assert.deepEqual(catalog.warnings, [
    `${dirs.globalDir}/types.json is not valid JSON (${
      jsonError('{"researcher": {"model": ')
    }); skipped`,
    `${local}/types.json must hold a JSON object keyed by name, like ` +
    `{"reviewer": {"system_prompt": "You review ..."}}; skipped`,
    `${local}/teams.json is larger than the 1 MiB limit (${CATALOG_MAX_BYTES + 11} bytes); skipped`,
  ]);
  // The bundled, plugin and global layers that are intact still load.
  assert.equal(catalog.types.size, 9);
  assert.equal(catalog.types.get("plugged")?.layer, "plugin");
  assert.equal(catalog.types.get("researcher")?.layer, "bundled");
  assert.deepEqual(catalog.teams.get("docs")?.stages, [{ type: "writer" }]);
});

Deno.test("a FIFO or a folder in place of a catalog file is skipped without hanging", async () => {
  await using dirs = await catalogDirs();
  await Deno.mkdir(`${dirs.worktree}/.svc/teams.json`, { recursive: true });
  await mkfifo(`${dirs.worktree}/.svc/types.json`);
  await mkfifo(`${dirs.globalDir}/types.json`);
  const catalog = await dirs.load(false);
  assert.deepEqual(catalog.warnings, [
    `${dirs.globalDir}/types.json is not a regular file; skipped`,
    `${dirs.worktree}/.svc/types.json is not a regular file; skipped`,
    `${dirs.worktree}/.svc/teams.json is not a regular file; skipped`,
  ]);
  assert.equal(catalog.types.size, 8);
  assert.equal(catalog.teams.size, 2);
});

Deno.test("one invalid entry is skipped with its path, name and field while the file's other entries load", async () => {
  await using dirs = await catalogDirs({
    global: {
      "types.json": {
        good: { system_prompt: "Fine." },
        typo: { system_prompt: "x", tool_permissions: { bash: "allow" } },
        loose: { system_prompt: "x", tool_permission: { bash: "yes" } },
        "bad name": { system_prompt: "x" },
        nolist: { system_prompt: "x", skills: "style-guide" },
      },
      "teams.json": {
        ok: { stages: ["writer"] },
        empty: { stages: [] },
        nomode: { stages: [{ type: "writer", mode: "fast" }] },
        notype: { stages: [{ mode: "plan" }] },
      },
    },
  });
  const types = `${dirs.globalDir}/types.json`;
  const teams = `${dirs.globalDir}/teams.json`;
  const catalog = await dirs.load(true, {
    types: [{ name: "p", system_prompt: "x", tool_permission: { shell: "allow" } }],
  });
  assert.deepEqual(catalog.warnings, [
    `a plugin: agent type "p": tool_permission: Unrecognized key: "shell"; skipped`,
    `${types}: agent type "typo": Unrecognized key: "tool_permissions"; skipped`,
    `${types}: agent type "loose": tool_permission.bash: Invalid option: expected one of ` +
    `"allow"|"ask"|"deny"|"sandboxed"; skipped`,
    `${types}: agent type "bad name": a name must be 1 to 64 letters, digits, '.', '_' or '-', ` +
    "starting with a letter or digit; skipped",
    `${types}: agent type "nolist": skills: Invalid input: expected array, received string; skipped`,
    `${teams}: team "empty": stages: Too small: expected array to have >=1 items; skipped`,
    `${teams}: team "nomode": stages.0.mode: Invalid option: expected one of "plan"|"build"; skipped`,
    `${teams}: team "notype": stages.0.type: Invalid input: expected string, received undefined; skipped`,
  ]);
  assert.deepEqual(catalog.types.get("good")?.system_prompt, "Fine.");
  assert.deepEqual(catalog.teams.get("ok")?.stages, [{ type: "writer" }]);
  assert.equal(catalog.types.has("typo"), false);
});

Deno.test("a global types.json or teams.json another user could write is skipped with the reason", async () => {
  await using dirs = await catalogDirs({
    global: {
      "types.json": {
        loose: { system_prompt: "Runs anything.", tool_permission: { bash: "allow" } },
      },
      "teams.json": { crew: { stages: ["loose"] } },
    },
  });
  await Deno.chmod(`${dirs.globalDir}/types.json`, 0o666);
  const open = await dirs.load(true);
  assert.equal(open.types.has("loose"), false);
  assert.equal(open.teams.has("crew"), true);
  assert.match(
    open.warnings[0],
    new RegExp(`^will not read ${dirs.globalDir}/types.json: .* \\(mode 0666\\).*; skipped$`),
  );
  await Deno.chmod(`${dirs.globalDir}/types.json`, 0o644);
  await Deno.chmod(dirs.globalDir, 0o777);
  const shared = await dirs.load(true);
  assert.deepEqual([shared.types.has("loose"), shared.teams.has("crew")], [false, false]);
  // types.json, teams.json and the skills folder, all in the shared folder.
  assert.equal(shared.warnings.filter((w) => w.includes("can be written by")).length, 3);
  await Deno.chmod(dirs.globalDir, 0o700);
  const own = await dirs.load(true);
  assert.deepEqual([own.types.has("loose"), own.teams.has("crew"), own.warnings], [true, true, []]);
});

Deno.test("a global skills or commands folder another user could write is skipped with the reason", async () => {
  await using dirs = await catalogDirs({
    global: {
      "skills/deploy.md": "Push straight to production.",
      "commands/ship.md": "Ship it: $ARGUMENTS",
    },
  });
  const commands = () =>
    loadPromptCommands({ worktree: dirs.worktree, trusted: false, globalDir: dirs.globalDir });
  await Deno.chmod(`${dirs.globalDir}/skills`, 0o777);
  await Deno.chmod(`${dirs.globalDir}/commands`, 0o777);
  // Without svc: another user (nobody, when this runs as root) plants a file there.
  if (Deno.uid() === 0) {
    const plant = await new Deno.Command("setpriv", {
      args: [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "sh",
        "-c",
        "echo Obey. > planted.md",
      ],
      cwd: `${dirs.globalDir}/skills`,
    }).output();
    assert.equal(plant.code, 0, new TextDecoder().decode(plant.stderr));
    assert.equal((await Deno.stat(`${dirs.globalDir}/skills/planted.md`)).uid, 65534);
  }
  const shared = await dirs.load(true);
  assert.deepEqual([shared.skills.has("deploy"), shared.skills.has("planted")], [false, false]);
  assert.match(
    shared.warnings.join("\n"),
    new RegExp(`^will not read ${dirs.globalDir}/skills: .*\\(mode 0777\\).*; skipped$`, "m"),
  );
  const sharedCommands = await commands();
  assert.deepEqual(sharedCommands.commands, []);
  assert.match(sharedCommands.warnings.join("\n"), /\/commands: .*\(mode 0777\).*; skipped$/m);
  await Deno.chmod(`${dirs.globalDir}/skills`, 0o755);
  await Deno.chmod(`${dirs.globalDir}/commands`, 0o700);
  await Deno.remove(`${dirs.globalDir}/skills/planted.md`).catch(() => {});
  const own = await dirs.load(true);
  assert.deepEqual([own.skills.has("deploy"), own.warnings], [true, []]);
  const ownCommands = await commands();
  assert.deepEqual([ownCommands.commands.map((c) => c.name), ownCommands.warnings], [["ship"], []]);
});
