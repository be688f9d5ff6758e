/**
 * Commands that pass bash_allow but name a path outside the worktree escalate to ask, as the file
 * tools do. Every read is first run by bash to prove it really prints the secret outside.
 */
import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { judgeToolCall } from "../../src/tool/judge.ts";
import { runCommandTool } from "../../plugins/svc-core-exec/src/run_command.ts";

const SECRET = `secret-${crypto.randomUUID()}`;
const ALLOW = "cat ls grep sed awk dd diff tar head echo wc cd tr".split(" ");

function setup(): { root: string; wt: string; [Symbol.dispose](): void } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-outside-" }));
  const wt = `${root}/wt`;
  Deno.mkdirSync(`${wt}/sub`, { recursive: true });
  Deno.mkdirSync(`${root}/away`);
  Deno.writeTextFileSync(`${root}/secret.txt`, `${SECRET}\n`);
  Deno.writeTextFileSync(`${wt}/f.txt`, "a line\n");
  Deno.writeTextFileSync(`${wt}/sub/g.txt`, "another line\n");
  Deno.symlinkSync("..", `${wt}/up`);
  // `sub/away/..` is `root`, though it reads as `sub` when `..` is taken lexically.
  Deno.symlinkSync("../../away", `${wt}/sub/away`);
  return { root, wt, [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }) };
}

/** [how it reaches out, command (ROOT is the folder above the worktree), verdict] */
const READS: [string, string, { action: string; reason: string }][] = [
  ["..", "cat ../secret.txt", ask("names", "../secret.txt")],
  ["absolute path", "cat ROOT/secret.txt", ask("names", "ROOT/secret.txt")],
  ["tilde", "cat ~/secret.txt", ask("names", "~/secret.txt")],
  ["variable", "cat $HOME/secret.txt", ask("uses", "$HOME/secret.txt")],
  ["symlink", "cat up/secret.txt", ask("names", "up/secret.txt")],
  [".. after a symlink", "cat sub/away/../secret.txt", ask("names", "sub/away/../secret.txt")],
  ["input redirection", "cat < ../secret.txt", ask("names", "../secret.txt")],
  ["brace list", "cat {..,.}/secret.txt 2>/dev/null", ask("names", "{..,.}/secret.txt")],
  ["glob", "cat ../s*.txt", ask("names", "../s*.txt")],
  ["glob through a symlink", "cat */secret.txt", ask("names", "*/secret.txt")],
  ["cd, then ..", "cd sub && cat ../../secret.txt", ask("names", "../../secret.txt")],
  ["name=value", "dd if=../secret.txt status=none", ask("names", "if=../secret.txt")],
  [
    "--option=value",
    "diff --from-file=../secret.txt f.txt",
    ask("names", "--from-file=../secret.txt"),
  ],
  ["short option value", "grep -h -f../secret.txt -r -e x ..", ask("names", "-f../secret.txt")],
  ["sed r command", "sed 'r ../secret.txt' f.txt", ask("names", "../secret.txt")],
  ["awk getline", `awk 'BEGIN{while((getline l < "../secret.txt")>0) print l}'`, {
    action: "deny",
    reason: "awk programs with system(), pipes, output redirection or script files are not " +
      `allowed: awk BEGIN{while((getline l < "../secret.txt")>0) print l}`,
  }],
  ["file writer's attached value", "tar -cf - -C.. secret.txt", {
    action: "deny",
    reason: "file-writing commands may only name literal paths inside the worktree: " +
      "tar -cf - -C.. secret.txt",
  }],
];

function ask(verb: "names" | "uses", word: string) {
  const what = verb === "names"
    ? "names a path outside the worktree"
    : "uses a variable that may name a path outside the worktree";
  return { action: "ask", reason: `${what}: ${word}` };
}

const resolve = (command: string, wt: string) =>
  runCommandTool.resolvePolicy!({ command, _permissions: { bash_allow: ALLOW } }, wt);

Deno.test("bash_allow asks before a command that reads outside the worktree, each read proven under bash", async () => {
  using t = setup();
  for (const [how, template, verdict] of READS) {
    const command = template.replaceAll("ROOT", t.root);
    const run = await new Deno.Command("bash", {
      args: ["-c", command],
      cwd: t.wt,
      env: { HOME: t.root },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const printed = new TextDecoder().decode(run.stdout);
    assert.ok(printed.includes(SECRET), `${how}: the read itself should print the secret`);
    const expected = { ...verdict, reason: verdict.reason.replaceAll("ROOT", t.root) };
    assert.deepEqual(resolve(command, t.wt), expected, how);
  }
});

Deno.test("bash_allow keeps commands that stay inside the worktree allowed without asking", () => {
  using t = setup();
  const commands = [
    "cat f.txt",
    "cat sub/../f.txt",
    "cat < f.txt",
    "ls *.txt sub/*.txt",
    "ls -la sub",
    "echo {a,b}.txt $? $HOME ~ /etc/passwd",
    "tr / _ < f.txt",
    "grep -rn line .",
    "sed -n '/x/p' f.txt",
    "awk -F/ '{print $1}' f.txt",
    "cd sub && cat ../f.txt g.txt",
    "head -c 4 /dev/urandom | wc -c",
    "diff f.txt sub/g.txt > /dev/null",
  ];
  assert.deepEqual(
    commands.map((c) => [c, resolve(c, t.wt)]),
    commands.map((c) => [c, undefined]),
  );
});

Deno.test("run_command with bash allowed asks for an outside path and the audit reason says why", () => {
  using t = setup();
  const config = ConfigSchema.parse({ tool_permission: { bash: "allow", bash_allow: ALLOW } });
  const judge = (command: string) =>
    judgeToolCall(runCommandTool, { args: { command }, scope: { config, worktree: t.wt } });
  assert.deepEqual([judge("cat f.txt"), judge("cat ../secret.txt"), judge("rm x")], [
    { action: "allow", reason: "bash category is allow", outsideWorktree: false },
    {
      action: "ask",
      reason: "run_command policy requires ask: names a path outside the worktree: ../secret.txt",
      // The command is judged by the tool's resolver; no path argument was outside.
      outsideWorktree: false,
    },
    {
      action: "deny",
      reason: "run_command policy requires deny: not in bash_allow: rm x",
      outsideWorktree: false,
    },
  ]);
});
