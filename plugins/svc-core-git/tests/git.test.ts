import assert from "node:assert/strict";
import { register_tools } from "../mod.ts";
import { gitTool } from "../src/git_tool.ts";
import { makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { git, makeRepo } from "./_repo.ts";
import { needs } from "../../../tests/_support/tools.ts";

const call = (dir: string, subcommand: string, args?: string[]) =>
  gitTool.run(args ? { subcommand, args } : { subcommand }, makeContext(dir));

Deno.test("git status reports a modified file (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  makeRepo(wt.dir);
  Deno.writeTextFileSync(`${wt.dir}/a.txt`, "two\n");
  assert.equal(await call(wt.dir, "status", ["--short"]), " M a.txt");
});

Deno.test(
  "git log, show, diff, branch and rev_parse give read-only output (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    const head = git(wt.dir, "rev-parse", "HEAD").trim();
    Deno.writeTextFileSync(`${wt.dir}/a.txt`, "two\n");
    assert.deepEqual(
      [
        await call(wt.dir, "log", ["--format=%s", "-n", "1"]),
        await call(wt.dir, "show", ["--stat", "--format=%s", "HEAD"]),
        await call(wt.dir, "diff", ["--name-only"]),
        await call(wt.dir, "branch", ["--show-current"]),
        await call(wt.dir, "rev_parse", ["HEAD"]),
        await call(wt.dir, "diff", ["--cached"]),
      ],
      [
        "first",
        "first\n\n a.txt | 1 +\n 1 file changed, 1 insertion(+)",
        "a.txt",
        "main",
        head,
        "(no output)",
      ],
    );
  },
);

Deno.test("git refuses option injection (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  makeRepo(wt.dir);
  const refused: [string, string[], string][] = [
    ["log", ["-c", "core.pager=id"], "Option -c is not allowed for git log"],
    ["diff", ["--output=/tmp/x"], "Option --output=/tmp/x is not allowed for git diff"],
    ["diff", ["--ext-diff"], "Option --ext-diff is not allowed for git diff"],
    ["log", ["--textconv"], "Option --textconv is not allowed for git log"],
    [
      "diff",
      ["--no-index", "/etc/passwd", "a.txt"],
      "Option --no-index is not allowed for git diff",
    ],
    ["status", ["-C", "/"], "Option -C is not allowed for git status"],
    ["log", ["--git-dir=/x"], "Option --git-dir=/x is not allowed for git log"],
    ["show", ["--exec-path=/x"], "Option --exec-path=/x is not allowed for git show"],
    ["log", ["--upload-pack=x"], "Option --upload-pack=x is not allowed for git log"],
    ["log", ["--config-env=a=b"], "Option --config-env=a=b is not allowed for git log"],
    ["branch", ["-D", "main"], "Option -D is not allowed for git branch"],
    ["branch", ["new-branch"], "git branch takes names only with --list (it is read-only here)"],
    ["branch", ["--", "new-branch"], "Option -- is not allowed for git branch"],
    ["log", ["-n", "x"], "Option -n needs a number"],
    ["log", ["--format=%G?"], "Signature placeholders (%G) are not allowed: they run gpg"],
    ["status", ["--porcelain", "-v"], "Option -v is not allowed for git status"],
  ];
  for (const [subcommand, args, message] of refused) {
    assert.deepEqual(await call(wt.dir, subcommand, args), { content: message, ok: false });
  }
});

Deno.test("git treats arguments after -- as paths (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  makeRepo(wt.dir);
  Deno.writeTextFileSync(`${wt.dir}/-c`, "dash\n");
  git(wt.dir, "add", "--", "-c");
  assert.equal(await call(wt.dir, "diff", ["--cached", "--name-only", "--", "-c"]), "-c");
});

Deno.test("git reports failures as error results (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  const result = await call(wt.dir, "log");
  assert.ok(typeof result === "object" && result.ok === false);
  assert.match(text(result), /^git log failed \(exit code 128\)\nfatal: not a git repository/);
});

Deno.test("svc-core-git registers git and git_commit", () => {
  const tools: { name: string; category: string }[] = [];
  register_tools({ add: (t) => tools.push(t) });
  assert.deepEqual(tools.map((t) => [t.name, t.category]), [["git", "read"], [
    "git_commit",
    "edit",
  ]]);
});
