/**
 * The git tool must not read files outside the repository: `git diff` falls into no-index mode
 * (a plain two-file comparison) when a path lies outside the repository or when it runs outside
 * one, and then prints any file. Plain git proves the leak; the tool refuses every such call, and
 * the policy asks before any path outside the worktree is given to git at all.
 */
import assert from "node:assert/strict";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { judgeToolCall } from "../../../src/tool/judge.ts";
import { gitTool } from "../src/git_tool.ts";
import { makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { git, makeRepo } from "./_repo.ts";
import { needs } from "../../../tests/_support/tools.ts";

const SECRET = "sk-outside-secret-4711";

/** A worktree holding a repository and a providers.json with a key in another folder. */
function setup() {
  const wt = tempWorktree();
  const home = tempWorktree();
  makeRepo(wt.dir);
  Deno.mkdirSync(`${home.dir}/.config/svc`, { recursive: true });
  const secret = `${home.dir}/.config/svc/providers.json`;
  Deno.writeTextFileSync(secret, `{"ollama":{"key":"${SECRET}"}}\n`);
  return {
    dir: wt.dir,
    home: home.dir,
    secret,
    [Symbol.dispose]() {
      wt[Symbol.dispose]();
      home[Symbol.dispose]();
    },
  };
}

/** stdout of plain git (no hardening, no refusals) in `cwd`, whatever its exit code. */
function plainGit(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, env: { GIT_CONFIG_NOSYSTEM: "1" } })
    .outputSync();
  return new TextDecoder().decode(out.stdout);
}

Deno.test(
  "plain git diff prints a file outside the repository (the leak is real) (needs git)",
  needs("git"),
  () => {
    using t = setup();
    Deno.mkdirSync(`${t.home}/plain`);
    Deno.writeTextFileSync(`${t.home}/plain/x.txt`, "x\n");
    const leaks = [
      plainGit(t.dir, "diff", "--", t.secret, "/dev/null"),
      plainGit(t.dir, "diff", t.secret, "/dev/null"),
      plainGit(t.dir, "diff", "--", "a.txt", t.secret),
      plainGit(`${t.home}/plain`, "diff", "x.txt", t.secret),
    ];
    assert.deepEqual(leaks.map((out) => out.includes(SECRET)), [true, true, true, true]);
  },
);

Deno.test(
  "git refuses no-index comparisons of paths outside the repository (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    const ctx = makeContext(t.dir);
    const refusal = (path: string) => ({
      content: `git diff compares only paths inside the repository: ${path} is outside it ` +
        "(comparing files outside git, no-index, is refused)",
      ok: false,
    });
    const rel = `../${t.home.split("/").pop()}/.config/svc/providers.json`;
    const cases: [string[], unknown][] = [
      [["--", t.secret, "/dev/null"], refusal(t.secret)],
      [[t.secret, "/dev/null"], refusal(t.secret)],
      [["--", "a.txt", t.secret], refusal(t.secret)],
      [["--stat", "--", "a.txt", "/dev/null"], refusal("/dev/null")],
      [[rel, "a.txt"], refusal(rel)],
      [["-U0", "--", "a.txt", `${t.dir}/../${rel}`], refusal(`${t.dir}/../${rel}`)],
      [["--no-index", t.secret, "a.txt"], {
        content: "Option --no-index is not allowed for git diff",
        ok: false,
      }],
    ];
    for (const [args, expected] of cases) {
      const result = await gitTool.run({ subcommand: "diff", args }, ctx);
      assert.deepEqual(result, expected, args.join(" "));
      assert.ok(!text(result as { content: string }).includes(SECRET));
    }
  },
);

Deno.test(
  "git diff is refused outside a repository, where git compares any two files (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    Deno.mkdirSync(`${t.home}/plain`);
    Deno.writeTextFileSync(`${t.home}/plain/x.txt`, "x\n");
    const ctx = makeContext(`${t.home}/plain`);
    const refusal = {
      content: "git diff needs a git repository: outside one it compares any two files " +
        "(no-index), which is refused",
      ok: false,
    };
    for (const args of [["x.txt", t.secret], ["--", "x.txt", "x.txt"], []]) {
      assert.deepEqual(await gitTool.run({ subcommand: "diff", args }, ctx), refusal);
    }
  },
);

Deno.test(
  "git diff of paths inside the repository still works (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    Deno.writeTextFileSync(`${t.dir}/a.txt`, "two\n");
    Deno.writeTextFileSync(`${t.dir}/b.txt`, "b\n");
    git(t.dir, "add", "b.txt");
    const ctx = makeContext(t.dir);
    assert.deepEqual(
      [
        await gitTool.run(
          { subcommand: "diff", args: ["--name-only", "--", "a.txt", "b.txt"] },
          ctx,
        ),
        await gitTool.run(
          { subcommand: "diff", args: ["--name-only", "HEAD", `${t.dir}/b.txt`] },
          ctx,
        ),
        await gitTool.run({ subcommand: "diff", args: ["--cached", "--name-only"] }, ctx),
      ],
      ["a.txt", "b.txt", "b.txt"],
    );
  },
);

Deno.test(
  "git asks before a path outside the worktree reaches git (needs git)",
  needs("git"),
  () => {
    using t = setup();
    Deno.symlinkSync(t.home, `${t.dir}/link`);
    const scope = { config: ConfigSchema.parse({}), worktree: t.dir };
    const verdict = (subcommand: string, args: string[]) =>
      judgeToolCall(gitTool, { args: { subcommand, args }, scope });
    const ask = { action: "ask", reason: "path is outside the worktree", outsideWorktree: true };
    const allow = { action: "allow", reason: "read category is allow", outsideWorktree: false };
    const cases: [string, string[], unknown][] = [
      ["diff", ["--", t.secret, "/dev/null"], ask],
      ["diff", [t.secret], ask],
      ["log", ["--oneline", "--", "../x"], ask],
      ["show", ["HEAD", "--", "link/.config/svc/providers.json"], ask],
      ["log", ["-n", "1", "~/notes"], ask],
      ["log", ["-L1,2:../x.ts"], ask],
      ["diff", ["--relative=../"], ask],
      ["diff", ["HEAD~1", "--", "a.txt", "src/"], allow],
      ["log", ["--oneline", "-n", "5", "main..HEAD"], allow],
      ["show", ["HEAD:a.txt", "stash@{0}"], allow],
      ["branch", ["--list", "/etc/*"], allow],
      ["status", [], allow],
    ];
    for (const [subcommand, args, expected] of cases) {
      assert.deepEqual(verdict(subcommand, args), expected, `${subcommand} ${args.join(" ")}`);
    }
  },
);
