import assert from "node:assert/strict";
import { findCommand, firstWord, parseCommand } from "../../src/repl/slash_command.ts";
import { BUILTIN_COMMANDS } from "../../src/repl/builtin_commands.ts";
import { helpText, pluginCommands } from "../../src/repl/commands_core.ts";
import { commonPrefix, complete, type NameSource } from "../../src/repl/complete.ts";
import { withExtra } from "../../src/repl/mod.ts";
import { jobsCommand } from "../../src/cli/repl_jobs.ts";

const NAMES: NameSource = (kind) =>
  Promise.resolve(
    ({
      sessions: ["ses_20260101_000000_alpha", "ses_20260102_000000_beta"],
      types: ["researcher", "writer"],
      teams: ["programming", "writing"],
      servers: ["files", "fetch"],
      commands: BUILTIN_COMMANDS.map((c) => c.name),
    } as Record<string, string[]>)[kind] ?? [],
  );

Deno.test("a slash line parses into a command name and its raw arguments", () => {
  assert.deepEqual(parseCommand('/tool file_read {"path": "a b"}'), {
    name: "tool",
    args: 'file_read {"path": "a b"}',
  });
  assert.deepEqual(parseCommand("  /HELP  "), { name: "help", args: "" });
  assert.deepEqual(parseCommand("/team run writing write\na poem"), {
    name: "team",
    args: "run writing write\na poem",
  });
  assert.equal(parseCommand("what is /etc/passwd"), null);
  assert.equal(parseCommand("/ nothing"), null);
  assert.deepEqual(firstWord("  load   my-session  "), ["load", "my-session"]);
});

Deno.test("every REPL slash command of the SPEC but /jobs is listed by /help, aliases included", () => {
  const spec = [
    "help",
    "connect",
    "model",
    "models",
    "model-list",
    "provider",
    "session",
    "config",
    "thinking",
    "tool",
    "plugins",
    "mcp",
    "type",
    "skill",
    "team",
    "compact",
    "version",
    "v",
    "exit",
  ];
  for (const name of spec) assert.ok(findCommand(BUILTIN_COMMANDS, name), name);
  for (const absent of ["agent", "spawn", "bookmark", "jobs"]) {
    assert.equal(findCommand(BUILTIN_COMMANDS, absent), undefined, absent);
  }
  const help = helpText(BUILTIN_COMMANDS);
  for (const name of spec) assert.match(help, new RegExp(`/${name}\\b`));
  assert.equal(
    helpText(BUILTIN_COMMANDS, "/model-list").split("\n").slice(0, 3).join("\n"),
    "/models\nlist the models the current provider offers (GET /v1/models)\nalias: /model-list",
  );
  assert.equal(helpText(BUILTIN_COMMANDS, "nope"), "unknown command nope; /help lists them");
});

Deno.test("the CLI adds /jobs before /compact, and /help jobs lists its subcommands", () => {
  const commands = withExtra(BUILTIN_COMMANDS, [jobsCommand]);
  const names = commands.map((c) => c.name);
  assert.deepEqual(names.slice(names.indexOf("team"), names.indexOf("compact") + 1), [
    "team",
    "jobs",
    "compact",
  ]);
  assert.equal(
    helpText(commands, "jobs").split("\n")[0],
    "/jobs [status|list|show <name>|approve|reject|enable|disable|stop|remove <name>]",
  );
});

Deno.test("plugin commands appear beside the built-ins and cannot shadow one", async () => {
  const printed: string[] = [];
  const { commands, skipped } = pluginCommands([
    {
      name: "hello",
      description: "say hello",
      run: (args, io) => Promise.resolve(io.print(`hi ${args}`)),
    },
    { name: "help", description: "mine", run: () => Promise.resolve() },
  ], BUILTIN_COMMANDS);
  assert.deepEqual(commands.map((c) => [c.name, c.summary]), [["hello", "say hello"]]);
  assert.deepEqual(skipped, ["plugin command /help is not added: a command of that name exists"]);
  // deno-lint-ignore no-explicit-any
  await commands[0].run({ print: (t: string) => printed.push(t) } as any, "you");
  assert.deepEqual(printed, ["hi you"]);
  const all = [...BUILTIN_COMMANDS, ...commands];
  assert.deepEqual(
    (await complete("/hel", { cursor: 4, commands: all, names: NAMES }))?.candidates,
    ["/hello", "/help"],
  );
});

Deno.test("Tab completes command names, subcommands and each argument kind", async () => {
  const at = async (
    line: string,
  ) => (await complete(line, { cursor: line.length, commands: BUILTIN_COMMANDS, names: NAMES }));
  assert.deepEqual(await at("/mo"), {
    start: 0,
    end: 3,
    candidates: ["/model", "/model-list", "/models"],
  });
  assert.deepEqual((await at("/session l"))?.candidates, ["list", "load"]);
  assert.deepEqual(await at("/session load ses_20260102"), {
    start: 14,
    end: 26,
    candidates: ["ses_20260102_000000_beta"],
  });
  assert.deepEqual((await at("/team run w"))?.candidates, ["writing"]);
  assert.deepEqual((await at("/team new docs r"))?.candidates, ["researcher"]);
  assert.deepEqual((await at("/type "))?.candidates, ["list", "researcher", "show", "writer"]);
  assert.deepEqual((await at("/mcp disconnect f"))?.candidates, ["fetch", "files"]);
  assert.deepEqual((await at("/thinking o"))?.candidates, ["off", "on"]);
  assert.deepEqual((await at("/help se"))?.candidates, ["session"]);
  assert.equal(await at("plain text"), null);
  assert.equal(await at("/session load a b"), null);
  assert.equal(commonPrefix(["ses_1_a", "ses_1_b"]), "ses_1_");
});
