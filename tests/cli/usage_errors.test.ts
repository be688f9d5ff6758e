import assert from "node:assert/strict";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.ts";
import { sandbox, svc } from "../_support/cli.ts";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";

/** Every command path of the program: `[]` for svc itself, `["config", "set"]`, ... */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

Deno.test("every command and subcommand refuses an unknown flag with exit 2, the problem and its --help", async () => {
  await using box = await sandbox();
  const paths = commandPaths(buildProgram(() => {}));
  assert.equal(paths.length > 12, true, `only ${paths.length} commands found`);
  const expected = (path: string[]) => [
    2,
    "",
    `error: unknown option '--frobnicate'\n(run "${
      ["svc", ...path].join(" ")
    } --help" for usage)\n`,
  ];
  // A few as whole processes (main.ts, its exit code), every one through the same entry in one
  // process: the error comes from parsing, before any command runs.
  for (const path of [[], ["run"], ["config", "set"], ["acp"]]) {
    const out = await svc([...path, "--frobnicate"], { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout, out.stderr], expected(path), path.join(" "));
  }
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...SVC_PERMISSIONS,
      "--quiet",
      new URL("./_usage_child.ts", import.meta.url).pathname,
      JSON.stringify(paths),
    ],
    cwd: box.worktree,
    env: box.env,
    stdin: "null",
  }).output();
  const split = (text: string) => text.split(/^@@ \d+\n/m).slice(1);
  const stdout = split(new TextDecoder().decode(child.stdout));
  const stderr = split(new TextDecoder().decode(child.stderr));
  assert.equal(stdout.length, paths.length, new TextDecoder().decode(child.stderr));
  for (const [i, path] of paths.entries()) {
    const [printed, code] = stdout[i].split(new RegExp(`^@@ ${i} (\\d+)\\n$`, "m"));
    assert.deepEqual([Number(code), printed, stderr[i]], expected(path), path.join(" "));
  }
});

Deno.test("missing and excess arguments and bad choices are usage errors with exit 2", async () => {
  await using box = await sandbox();
  const cases: Array<[string[], string]> = [
    [["config", "set", "max_tokens"], "error: missing required argument 'value'"],
    [
      ["config", "get", "a", "b"],
      "error: too many arguments for 'get'. Expected 1 argument but got 2: a, b.",
    ],
    [["plugins", "install"], "error: missing required argument 'source'"],
    [
      ["serve", "extra"],
      "error: too many arguments for 'serve'. Expected 0 arguments but got 1: extra.",
    ],
    [
      ["run", "--output", "xml", "hi"],
      "error: option '--output <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.",
    ],
    [["frobnicate"], "error: unknown command 'frobnicate'"],
  ];
  for (const [args, message] of cases) {
    const out = await svc(args, { cwd: box.worktree, env: box.env });
    assert.equal(out.code, 2, args.join(" "));
    assert.equal(out.stderr.startsWith(`${message}\n(run "svc`), true, out.stderr);
  }
});

Deno.test("svc run refuses --yes with --no and --prompt with prompt words before anything runs", async () => {
  await using box = await sandbox();
  const cases: Array<[string[], string]> = [
    [["run", "--yes", "--no", "hi"], "svc run: --yes and --no cannot be combined\n"],
    [
      ["run", "--prompt", "hi", "extra", "words"],
      'svc run: give the prompt with --prompt or as words, not both (extra words: "extra words")\n',
    ],
  ];
  for (const [args, stderr] of cases) {
    // The backend address is dead: a run that went ahead would fail with exit 1, not 2.
    const full = [...args, "--base-url", "http://127.0.0.1:9", "--model", "m"];
    const out = await svc(full, { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout, out.stderr], [2, "", stderr], args.join(" "));
  }
  assert.equal(await Deno.stat(`${box.worktree}/.svc`).catch(() => null), null);
});

Deno.test("svc trust --list with --remove or a folder is a usage error", async () => {
  await using box = await sandbox();
  const cases: Array<[string[], string]> = [
    [["trust", "--list", "--remove"], "svc trust: --list takes no folder and no --remove\n"],
    [["trust", "--list", "."], "svc trust: --list takes no folder and no --remove\n"],
  ];
  for (const [args, stderr] of cases) {
    const out = await svc(args, { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout, out.stderr], [2, "", stderr], args.join(" "));
  }
});

Deno.test("a named command builds only itself; svc alone, help and a misspelt command build every command", async () => {
  const names = (only?: string) => buildProgram(() => {}, only).commands.map((c) => c.name());
  assert.deepEqual(names("run"), ["run"]);
  assert.deepEqual(names("teams"), ["teams"]);
  assert.deepEqual(names(), [
    "run",
    "config",
    "connect",
    "plugins",
    "serve",
    "mcp",
    "acp",
    "trust",
    "types",
    "skills",
    "teams",
    "eval",
    "jobs",
    "fleet",
    "sandbox",
    "sessions",
    "undo",
  ]);
  await using box = await sandbox();
  const misspelt = await svc(["rn", "hi"], { cwd: box.worktree, env: box.env });
  assert.deepEqual([misspelt.code, misspelt.stdout, misspelt.stderr], [
    2,
    "",
    `error: unknown command 'rn'\n(Did you mean run?)\n(run "svc --help" for usage)\n`,
  ]);
  const help = await svc(["--help"], { cwd: box.worktree, env: box.env });
  assert.equal(help.code, 0);
  for (const name of names()) {
    assert.match(help.stdout, new RegExp(`^  ${name} `, "m"), `svc --help lists ${name}`);
  }
});
