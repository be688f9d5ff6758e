/** What crosses between svc and a sandboxed plugin's Worker: registrations, calls, context. */
import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { sandboxSettings } from "../../src/sandbox/settings.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { normalizeToolCall } from "../../src/tool/normalize.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import type { AskRequest, ElicitationRequest } from "../../src/tool/types.ts";
import { call, probeEntry, sandboxedProbe } from "./_sandbox.ts";
import { copyFixture, makeLayout, manifest, testContext, writePlugin } from "./_helpers.ts";

Deno.test("every hook's plain registrations cross from a sandboxed plugin", async () => {
  await using t = await makeLayout();
  await copyFixture("kitchen", t.globalDir);
  const loaded = await loadPlugins({ ...t.roots, names: ["svc-test-kitchen"] });
  try {
    assert.deepEqual(loaded.plugins.map((p) => [p.origin, p.status, p.message]), [
      ["global", "loaded", ""],
    ]);
    assert.deepEqual(
      {
        tools: loaded.tools.map((x) => [x.name, x.category, x.description]),
        providers: loaded.providers,
        commands: loaded.commands.map((x) => [x.name, x.description]),
        types: loaded.types,
        teams: loaded.teams,
        skills: loaded.skills,
        services: loaded.services,
        fixtures: loaded.fixtures,
      },
      {
        tools: [["kitchen_echo", "read", "Echoes its text"]],
        providers: [{ id: "kitchen", baseUrl: "http://127.0.0.1:9", defaultModel: "k-1" }],
        commands: [["kitchen", "Says hi"]],
        types: [{ name: "cook", system_prompt: "You cook." }],
        teams: [{ name: "kitchen", stages: ["cook"] }],
        skills: [{ name: "knife", content: "# Knife\nCut away from yourself." }],
        services: [{ name: "kitchen" }],
        fixtures: [{ id: "kitchen-1", prompt: "Echo hi" }],
      },
    );
    assert.deepEqual(await loaded.tools[0].run({ text: "hi" }, testContext(t.worktree)), {
      content: "hi",
    });
    const printed: string[] = [];
    await loaded.commands[0].run("", { print: (text) => printed.push(text) });
    assert.deepEqual(printed, ["hi"]);
    assert.deepEqual(loaded.owners, new Map([["kitchen_echo", "svc-test-kitchen"]]));
  } finally {
    loaded.close();
  }
});

Deno.test("status lines, questions, delegation and the config cross the Worker boundary", async () => {
  await using t = await makeLayout();
  using p = await sandboxedProbe(
    t,
    `ctx.status("step one");
const answer = await ctx.ask({ question: "Go on?", options: ["yes", "no"], target: "human" });
const delegated = ctx.delegate ? (await ctx.delegate("cook", "make tea")).content : "none";
const [server, remote] = ctx.config["mcp.servers"];
return [answer, delegated, remote.headers.Authorization, server.env.TOKEN, server.command,
  ctx.session, ctx.worktree, ctx.headless, ctx.trusted].join("|");`,
    { delegate: true },
  );
  const statuses: string[] = [];
  const asked: AskRequest[] = [];
  const config = ConfigSchema.parse({
    "mcp.servers": [
      { name: "s", command: "srv", env: { TOKEN: "secret" } },
      {
        name: "h",
        transport: "http",
        url: "http://127.0.0.1:1/mcp",
        headers: { Authorization: "Bearer secret" },
      },
    ],
  });
  const ctx = testContext(t.worktree, {
    config,
    session: "ses_1",
    trusted: true,
    status: (line) => statuses.push(line),
    ask: (request) => {
      asked.push(request);
      return Promise.resolve("yes");
    },
    delegate: (type, task) => Promise.resolve({ content: `${type} did ${task}` }),
  });
  assert.deepEqual(await call(p, undefined, ctx), {
    content: `yes|cook did make tea|[hidden]|[hidden]|srv|ses_1|${t.worktree}|true|true`,
  });
  assert.deepEqual(statuses, ["step one"]);
  assert.deepEqual(asked, [{ question: "Go on?", options: ["yes", "no"], target: "human" }]);
  // The config went once; a second call with the same config object reuses it.
  assert.equal(
    (await call(p, undefined, { ...ctx, delegate: undefined }) as { content: string })
      .content.split("|")[1],
    "none",
  );
});

Deno.test("a server's question crosses the Worker boundary to the configured approver; a malformed one stays undecided", async () => {
  await using t = await makeLayout();
  using p = await sandboxedProbe(
    t,
    `if (!ctx.elicit) return "no approver";
const form = { properties: { color: { type: "string", enum: ["red"] } } };
const ok = await ctx.elicit({ server: "srv", message: "Color?", mode: "form", requested_schema: form });
const bad = await ctx.elicit({ server: 7, message: "x", requested_schema: "all of it" });
return JSON.stringify([ok, bad]);`,
  );
  const asked: ElicitationRequest[] = [];
  const decision = {
    action: "accept" as const,
    content: { color: "red" },
    author: "the approver (Elicitation hook)",
  };
  const ctx = testContext(t.worktree, {
    elicit: (request) => {
      asked.push(request);
      return Promise.resolve(decision);
    },
  });
  assert.deepEqual(await call(p, undefined, ctx), { content: JSON.stringify([decision, null]) });
  assert.deepEqual(asked, [{
    server: "srv",
    message: "Color?",
    mode: "form",
    requested_schema: { properties: { color: { type: "string", enum: ["red"] } } },
  }]);
  // Without an approver the Worker's context has none to ask.
  assert.deepEqual(await call(p, undefined, testContext(t.worktree)), { content: "no approver" });
});

Deno.test("a tool that honours its cancel returns what it had and its plugin keeps serving", async () => {
  await using t = await makeLayout();
  using p = await sandboxedProbe(
    t,
    `if (args.arg === "wait") {
  await new Promise((done) => ctx.signal.addEventListener("abort", done));
  return "stopped early";
}
return "next";`,
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  assert.deepEqual(
    await call(p, "wait", testContext(t.worktree, { signal: controller.signal })),
    { content: "stopped early" },
  );
  assert.deepEqual(await call(p, "again"), { content: "next" });
});

Deno.test("a sandboxed tool advertises the in-process tool's schema and both sides check arguments", async () => {
  await using t = await makeLayout();
  const schema = `z.object({
      path: z.string().describe("A file"),
      lines: z.number().int().min(1).default(20).describe("How many"),
      mode: z.enum(["head", "tail"]).optional(),
      tag: z.string().regex(/^[a-z]+$/).optional(),
    })`;
  const entry = `import { z } from "zod";
export function register_tools(r) {
  r.add({ name: "peek", category: "read", description: "Peeks", pathArgs: ["path"],
    schema: ${schema}, run: async (args) => JSON.stringify(args) });
}\n`;
  await writePlugin(t.bundledDir, "peek-trusted", {
    "manifest.json": manifest("peek-trusted"),
    "mod.ts": entry,
  });
  await writePlugin(t.globalDir, "peek", { "manifest.json": manifest("peek"), "mod.ts": entry });
  const trusted = await loadPlugins({ ...t.roots, names: ["peek-trusted"] });
  const sandboxed = await loadPlugins({ ...t.roots, names: ["peek"] });
  try {
    const [inProcess, remote] = [trusted.tools[0], sandboxed.tools[0]];
    const registry = new ToolRegistry();
    const advertised = (tool: typeof remote) => {
      const parameters = registry.schemaOf(tool).function.parameters as {
        properties: Record<string, Record<string, unknown>>;
      };
      // A regular expression never runs in svc's thread; the Worker checks it.
      delete parameters.properties.tag.pattern;
      return parameters;
    };
    assert.deepEqual(advertised(remote), advertised(inProcess));
    assert.deepEqual(remote.pathArgs, ["path"]);
    const view = new ToolRegistry();
    view.add(remote);
    // svc validates and coerces as for any tool ...
    const normalized = normalizeToolCall(view, {
      name: "peek",
      rawArguments: `{"file": "a.txt", "lines": "5"}`,
      available: ["peek"],
    });
    assert.deepEqual(normalized.ok && normalized.args, { path: "a.txt", lines: 5 });
    assert.deepEqual(
      normalizeToolCall(view, { name: "peek", rawArguments: `{"lines": 0}`, available: ["peek"] }),
      {
        ok: false,
        tool: remote,
        error: "Error: invalid arguments for peek: path: Invalid input: expected string, " +
          "received undefined; lines: Too small: expected number to be >=1",
      },
    );
    // ... and the Worker checks again with the plugin's own schema, the pattern included.
    const ctx = testContext(t.worktree);
    assert.deepEqual(await remote.run({ path: "a", lines: 2, tag: "ok" }, ctx), {
      content: `{"path":"a","lines":2,"tag":"ok"}`,
    });
    assert.deepEqual(await remote.run({ path: "a", lines: 2, tag: "NO!" }, ctx), {
      content: "Error: invalid arguments for peek: tag: Invalid string: must match pattern " +
        "/^[a-z]+$/",
      ok: false,
    });
  } finally {
    sandboxed.close();
  }
});

Deno.test("a sandboxed plugin's agent types keep only the deny entries of tool_permission", async () => {
  await using t = await makeLayout();
  const entry = `export function register_types(types) {
  types.add({ name: "loose", system_prompt: "x",
    tool_permission: { bash: "allow", edit: "ask", web: "deny", bash_allow: ["rm"] } });
}\n`;
  await writePlugin(t.globalDir, "typer", { "manifest.json": manifest("typer"), "mod.ts": entry });
  const loaded = await loadPlugins({ ...t.roots, names: ["typer"] });
  loaded.close();
  assert.deepEqual(loaded.types, [
    { name: "loose", system_prompt: "x", tool_permission: { web: "deny" } },
  ]);
});

Deno.test("in svc's own process (a compiled binary's way) a plugin granted run loads only when commands may run without a sandbox", async () => {
  await using t = await makeLayout();
  await writePlugin(t.globalDir, "probe", {
    "manifest.json": manifest("probe", { permissions: { run: ["true"] } }),
    "mod.ts": probeEntry(`return "ran";`),
  });
  const sandbox = sandboxSettings(ConfigSchema.parse({}), t.roots.worktree);
  const loaded = await loadPlugins({ ...t.roots, names: ["probe"], transport: "worker", sandbox });
  loaded.close();
  const [plugin] = loaded.plugins;
  assert.deepEqual([plugin.status, plugin.message], [
    "errored",
    "Not loaded: its grant includes run (programs it starts escape Deno's permissions), so its " +
    "process must run in svc's OS sandbox: a compiled svc runs plugins inside its own process, " +
    "where no OS sandbox can hold the programs they start; run svc with deno (deno task " +
    "install), or set sandbox.failIfUnavailable to false",
  ]);
});

Deno.test("in svc's own process (a compiled binary's way) a Worker still gets only its grant", async () => {
  await using t = await makeLayout();
  await writePlugin(t.globalDir, "probe", {
    "manifest.json": manifest("probe", { permissions: { run: ["true"] } }),
    "mod.ts": probeEntry(`return String((await new Deno.Command(args.arg).output()).code);`),
  });
  // A compiled svc cannot hold a plugin's programs in the OS sandbox: only without one.
  const sandbox = sandboxSettings(
    ConfigSchema.parse({ "sandbox.failIfUnavailable": false }),
    t.roots.worktree,
  );
  const loaded = await loadPlugins({
    ...t.roots,
    names: ["probe"],
    transport: "worker",
    sandbox,
  });
  try {
    assert.deepEqual(await call(loaded, "true"), { content: "0" });
    assert.deepEqual(await call(loaded, "false"), {
      error: `Requires run access to "false": plugin probe is not granted it (see "permissions" ` +
        "in its manifest.json)",
    });
  } finally {
    loaded.close();
  }
});
