/** The roster commands end to end: init, add, remove, config, and how they meet `svc trust`. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testFleet } from "./_fleet.ts";

const CONFIG = { mode: "build" };

Deno.test("fleet config writes only the keys given; --type inlines the type; an unknown type or an unapproved type model aborts the write", async () => {
  await using fleet = await testFleet([], "28860-28869");
  const dir = join(fleet.root, "writer");
  const file = join(dir, ".svc", "config.json");
  await Deno.mkdir(join(dir, ".svc"), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(CONFIG));
  await Deno.mkdir(join(fleet.home, ".config", "svc"), { recursive: true });
  await Deno.writeTextFile(
    join(fleet.home, ".config", "svc", "types.json"),
    JSON.stringify({
      hosted: {
        system_prompt: "You answer briefly.",
        model: "openai/gpt-4o-mini",
        tool_permission: { edit: "deny", web: "allow" },
      },
      local: { system_prompt: "You review.", tool_permission: { bash: "deny" } },
    }),
  );
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  const read = async () => JSON.parse(await Deno.readTextFile(file));

  const unknown = await fleet.svc(["fleet", "config", "writer", "--type", "nosuch"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^svc fleet config: unknown type "nosuch" \(available types: .*\bhosted\b.*\); nothing was written\n$/,
  );
  assert.deepEqual(await read(), CONFIG);

  const unapproved = await fleet.svc(["fleet", "config", "writer", "--type", "hosted"]);
  assert.equal(unapproved.code, 1);
  assert.match(
    unapproved.stderr,
    /^svc fleet config: model not approved: openai\/gpt-4o-mini is named by an agent type or team .*--approve-model.*; nothing was written\n$/,
  );
  assert.deepEqual(await read(), CONFIG);

  const local = await fleet.svc(["fleet", "config", "writer", "--type", "local"]);
  assert.equal(local.code, 0, local.stderr);
  assert.deepEqual(await read(), {
    ...CONFIG,
    system_prompt: "You review.",
    tool_permission: { bash: "deny" },
  });

  const approved = await fleet.svc([
    "fleet",
    "config",
    "writer",
    "--type",
    "hosted",
    "--approve-model",
  ]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.deepEqual(await read(), {
    ...CONFIG,
    system_prompt: "You answer briefly.",
    model: "openai/gpt-4o-mini",
    tool_permission: { bash: "deny", edit: "deny", web: "allow" },
  });
  const models = JSON.parse(
    await Deno.readTextFile(join(fleet.home, ".config", "svc", "models.json")),
  );
  assert.deepEqual(
    models.map((m: { provider: string; model: string }) => `${m.provider}/${m.model}`),
    ["openai/gpt-4o-mini"],
  );

  const flags = await fleet.svc([
    "fleet",
    "config",
    "writer",
    "--mode",
    "plan",
    "--tools-deny",
    "run_command,file_write",
    "--tool-permission",
    "edit=ask",
    "--system-prompt",
    "Be kind.",
  ]);
  assert.equal(flags.code, 0, flags.stderr);
  assert.deepEqual(await read(), {
    mode: "plan",
    system_prompt: "Be kind.",
    model: "openai/gpt-4o-mini",
    tool_permission: { bash: "deny", edit: "ask", web: "allow" },
    "tools.deny": ["run_command", "file_write"],
  });

  const bad = await fleet.svc(["fleet", "config", "writer", "--tool-permission", "frob=allow"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--tool-permission: unknown category "frob"/);
  const none = await fleet.svc(["fleet", "config", "writer"]);
  assert.equal(none.code, 2);
  const missing = await fleet.svc(["fleet", "config", "ghost", "--mode", "plan"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no agent named ghost in .*fleet\.json \(agents: writer\)/);
});

Deno.test("fleet init and add record each agent folder as trusted; with --no-trust the folder stays untrusted and status says so", async () => {
  await using fleet = await testFleet(["trusted-one"], "28870-28879");
  await Deno.mkdir(join(fleet.root, "outsider", ".svc"), { recursive: true });
  const init = await fleet.svc(["fleet", "init", "--no-trust"]);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, /^added trusted-one to /m, "outsider has no .svc/config.json");
  assert.match(
    init.stderr,
    /note: .*trusted-one is not trusted: its \.svc\/config\.json may only tighten the policy/,
  );
  const trustList = join(fleet.home, ".config", "svc", "trusted.json");
  assert.equal(await Deno.stat(trustList).then(() => true, () => false), false);

  const add = await fleet.svc(["fleet", "add", "outsider", "--port", "28871"]);
  assert.equal(add.code, 0, add.stderr);
  const outsider = join(fleet.root, "outsider");
  assert.match(add.stdout, new RegExp(`^trusted ${outsider} \\(as svc trust does\\)`, "m"));
  assert.match(add.stderr, /\.svc\/config\.json does not exist; give the agent a model backend/);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(trustList)), [outsider]);
  const roster = JSON.parse(await Deno.readTextFile(join(fleet.root, ".svc", "fleet.json")));
  assert.deepEqual(roster, {
    agents: [
      { name: "trusted-one", dir: "trusted-one", enabled: true },
      { name: "outsider", dir: "outsider", enabled: true, prefer_port: 28871 },
    ],
  });

  const twice = await fleet.svc(["fleet", "add", "outsider"]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /agent outsider is already in /);

  const status = await fleet.svc(["fleet", "status", "--json"]);
  assert.deepEqual(
    JSON.parse(status.stdout).map((a: { name: string; trusted: boolean }) => [a.name, a.trusted]),
    [["trusted-one", false], ["outsider", true]],
  );
  const table = await fleet.svc(["fleet", "status"]);
  assert.match(
    table.stdout,
    new RegExp(
      `^trusted-one: folder not trusted, .*\\(svc trust ${fleet.root}/trusted-one\\)$`,
      "m",
    ),
  );

  const removed = await fleet.svc(["fleet", "remove", "outsider"]);
  assert.equal(removed.code, 0, removed.stderr);
  const after = JSON.parse(await Deno.readTextFile(join(fleet.root, ".svc", "fleet.json")));
  assert.deepEqual(after.agents.map((a: { name: string }) => a.name), ["trusted-one"]);
});

Deno.test("an invalid roster is reported with its path and never overwritten", async () => {
  await using fleet = await testFleet(["x"], "28880-28889");
  const path = join(fleet.root, ".svc", "fleet.json");
  await Deno.mkdir(join(fleet.root, ".svc"));
  const text = JSON.stringify({ agents: [{ name: "x", dir: "x" }, { name: "x", dir: "x" }] });
  await Deno.writeTextFile(path, text);
  for (const args of [["fleet", "up"], ["fleet", "init"], ["fleet", "status"]]) {
    const result = await fleet.svc(args);
    assert.equal(result.code, 1, args.join(" "));
    assert.match(
      result.stderr,
      new RegExp(`${path} is not a valid roster: agents\\.1\\.name: agent x is listed twice`),
    );
  }
  assert.equal(await Deno.readTextFile(path), text);
});
