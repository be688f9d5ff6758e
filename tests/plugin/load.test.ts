import assert from "node:assert/strict";
import { join } from "node:path";
import { loadPlugins } from "../../src/plugin/load.ts";
import { copyFixture, makeLayout, manifest, writePlugin, writeToolPlugin } from "./_helpers.ts";

Deno.test("every hook's registrations are collected from a loaded plugin", async () => {
  await using t = await makeLayout();
  await copyFixture("kitchen", t.bundledDir);
  const result = await loadPlugins({ ...t.roots, names: ["svc-test-kitchen"] });
  assert.deepEqual(result.plugins, [{
    name: "svc-test-kitchen",
    version: "1.2.3",
    origin: "bundled",
    dir: join(t.bundledDir, "kitchen"),
    status: "loaded",
    message: "",
    permissions: "all",
  }]);
  const names = {
    tools: result.tools.map((x) => x.name),
    providers: result.providers.map((x) => x.id),
    commands: result.commands.map((x) => x.name),
    types: result.types.map((x) => x.name),
    teams: result.teams.map((x) => x.name),
    skills: result.skills.map((x) => x.name),
    services: result.services.map((x) => x.name),
    fixtures: result.fixtures.map((x) => x.id),
  };
  assert.deepEqual(names, {
    tools: ["kitchen_echo"],
    providers: ["kitchen"],
    commands: ["kitchen"],
    types: ["cook"],
    teams: ["kitchen"],
    skills: ["knife"],
    services: ["kitchen"],
    fixtures: ["kitchen-1"],
  });
  const ctx = {} as Parameters<typeof result.tools[0]["run"]>[1];
  assert.equal(await result.tools[0].run({ text: "hi" }, ctx), "hi");
});

Deno.test("a plugin whose register_tools throws is marked errored", async () => {
  await using t = await makeLayout();
  await copyFixture("thrower", t.globalDir);
  await copyFixture("kitchen", t.globalDir);
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  assert.deepEqual(result.plugins[1], {
    name: "svc-test-thrower",
    version: "0.1.0",
    origin: "global",
    dir: join(t.globalDir, "thrower"),
    status: "errored",
    message: "register_tools failed: boom",
    permissions: {
      read: [join(t.globalDir, "thrower")],
      write: [],
      net: [],
      run: [],
      env: [],
      import: [],
      sensitive: [],
    },
  });
  assert.deepEqual(result.tools.map((tool) => tool.name), ["kitchen_echo"]);
  assert.deepEqual(result.skills.map((skill) => skill.name), ["knife"]);
});

Deno.test("a later hook failing discards what earlier hooks registered", async () => {
  await using t = await makeLayout();
  const entry = `import { z } from "zod";
  export function register_tools(r) {
    r.add({ name: "early", category: "read", description: "", schema: z.object({}),
      run: async () => "" });
  }
  export async function register_skills(r) { await null; throw new Error("no skills today"); }\n`;
  await writePlugin(t.localDir, "late", {
    "manifest.json": manifest("late"),
    "mod.ts": entry,
  });
  const bad = `export function register_tools(r) { r.add({ name: "nameless" }); }\n`;
  await writePlugin(t.localDir, "shape", {
    "manifest.json": manifest("shape"),
    "mod.ts": bad,
  });
  const notFunction = `export const register_teams = "not a function";\n`;
  await writePlugin(t.localDir, "odd", {
    "manifest.json": manifest("odd"),
    "mod.ts": notFunction,
  });
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  assert.deepEqual(result.plugins.map((p) => [p.name, p.status, p.message]), [
    ["late", "errored", "register_skills failed: no skills today"],
    [
      "odd",
      "errored",
      "register_teams failed: register_teams is not a function",
    ],
    [
      "shape",
      "errored",
      `register_tools failed: Invalid tool nameless: "run" must be a function`,
    ],
  ]);
  assert.deepEqual(result.tools, []);
});

Deno.test("an entry that fails to import or never settles is errored, not fatal", async () => {
  await using t = await makeLayout();
  await writePlugin(t.localDir, "syntax", {
    "manifest.json": manifest("syntax"),
    "mod.ts": "export fun(",
  });
  await writePlugin(t.localDir, "stuck", {
    "manifest.json": manifest("stuck"),
    "mod.ts": "export function register_tools() { return new Promise(() => {}); }\n",
  });
  await writeToolPlugin(t.localDir, "fine", "fine_tool");
  // Long enough that "fine" loads on a loaded machine; "stuck" waits it out.
  const result = await loadPlugins({ ...t.roots, names: [], timeoutMs: 1500 });
  result.close();
  assert.deepEqual(result.plugins.map((p) => [p.name, p.status]), [
    ["fine", "loaded"],
    ["stuck", "errored"],
    ["syntax", "errored"],
  ]);
  assert.equal(
    result.plugins[1].message,
    "register_tools failed: timed out after 1500 ms",
  );
  assert.match(result.plugins[2].message, /^Import failed: /);
  assert.deepEqual(result.tools.map((tool) => tool.name), ["fine_tool"]);
});

Deno.test("plugins outside the config list are disabled and unknown names are reported", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "on", "on_tool");
  await writeToolPlugin(t.bundledDir, "off", "off_tool");
  const result = await loadPlugins({ ...t.roots, names: ["on", "ghost"] });
  assert.deepEqual(result.plugins, [
    {
      name: "off",
      version: "1.0.0",
      origin: "bundled",
      dir: join(t.bundledDir, "off"),
      status: "disabled",
      message: "Not in the plugins config list",
      permissions: "all",
    },
    {
      name: "on",
      version: "1.0.0",
      origin: "bundled",
      dir: join(t.bundledDir, "on"),
      status: "loaded",
      message: "",
      permissions: "all",
    },
    {
      name: "ghost",
      version: "",
      origin: null,
      dir: null,
      status: "errored",
      message: "Not found in the bundled, global or local plugin folders",
      permissions: null,
    },
  ]);
  assert.deepEqual(result.tools.map((tool) => tool.name), ["on_tool"]);
});

Deno.test("an empty plugins list loads every discovered plugin", async () => {
  await using t = await makeLayout();
  await writeToolPlugin(t.bundledDir, "a", "a_tool");
  await writeToolPlugin(t.globalDir, "b", "b_tool");
  await writeToolPlugin(t.localDir, "c", "c_tool");
  const result = await loadPlugins({ ...t.roots, names: [] });
  result.close();
  assert.deepEqual(result.plugins.map((p) => [p.name, p.origin, p.status]), [
    ["a", "bundled", "loaded"],
    ["b", "global", "loaded"],
    ["c", "local", "loaded"],
  ]);
  assert.deepEqual(result.tools.map((tool) => tool.name), [
    "a_tool",
    "b_tool",
    "c_tool",
  ]);
});

Deno.test("plugin entries are imported in parallel", async () => {
  await using t = await makeLayout();
  // Each import waits a second: eight in a row would take 8 s, at once about 1 s.
  const slow = "await new Promise((done) => setTimeout(done, 1000));\nexport {};\n";
  for (let i = 0; i < 8; i++) {
    await writePlugin(t.localDir, `slow${i}`, {
      "manifest.json": manifest(`slow${i}`),
      "mod.ts": slow,
    });
  }
  const started = performance.now();
  const result = await loadPlugins({ ...t.roots, names: [] });
  const elapsed = performance.now() - started;
  result.close();
  assert.deepEqual(
    result.plugins.map((p) => p.status),
    Array(8).fill("loaded"),
  );
  assert.ok(
    elapsed < 5000,
    `took ${elapsed} ms; sequential loading would take 8000 ms`,
  );
});
