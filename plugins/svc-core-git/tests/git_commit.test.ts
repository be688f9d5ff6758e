import assert from "node:assert/strict";
import { gitCommitTool, worktreePath } from "../src/git_commit.ts";
import { makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { git, makeRepo } from "./_repo.ts";
import { needs } from "../../../tests/_support/tools.ts";

const commit = (dir: string, args: Record<string, unknown>) =>
  gitCommitTool.run(args, makeContext(dir));

Deno.test("git_commit is always ask-gated", () => {
  const resolve = gitCommitTool.resolvePolicy!;
  assert.deepEqual(
    [
      resolve({ message: "m", _permissions: {} }, "/w"),
      resolve({ message: "m", _permissions: { edit: "allow", bash: "allow" } }, "/w"),
    ],
    ["ask", "ask"],
  );
});

Deno.test("git_commit stages the given paths and commits (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  makeRepo(wt.dir);
  Deno.writeTextFileSync(`${wt.dir}/a.txt`, "two\n");
  Deno.writeTextFileSync(`${wt.dir}/new file.txt`, "new\n");
  const result = text(await commit(wt.dir, { message: "second", add: ["a.txt", "new file.txt"] }));
  assert.match(
    result,
    /^\[main [0-9a-f]+\] second\n 2 files changed, 2 insertions\(\+\), 1 deletion\(-\)/,
  );
  assert.equal(git(wt.dir, "log", "--format=%s").trim(), "second\nfirst");
});

Deno.test(
  "git_commit treats the message literally and never amends (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    Deno.writeTextFileSync(`${wt.dir}/b.txt`, "b\n");
    await commit(wt.dir, { message: "--amend", add: ["b.txt"] });
    assert.equal(git(wt.dir, "log", "--format=%s").trim(), "--amend\nfirst");
  },
);

Deno.test(
  "git_commit refuses paths outside the worktree or inside .git (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    using outside = tempWorktree();
    makeRepo(wt.dir);
    Deno.symlinkSync(outside.dir, `${wt.dir}/link`);
    for (const path of ["../x", "/etc/passwd", "link/x", ".git/config", "sub/../../x", ""]) {
      assert.deepEqual(await commit(wt.dir, { message: "m", add: [path] }), {
        content: `Path is outside the worktree: ${path}`,
        ok: false,
      });
    }
    assert.deepEqual(
      ["a.txt", "./sub/new.txt", `${wt.dir}/a.txt`, "."].map((p) => worktreePath(wt.dir, p)),
      ["a.txt", "sub/new.txt", "a.txt", "."],
    );
  },
);

Deno.test(
  "git_commit reports that there is nothing to commit (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    const result = await commit(wt.dir, { message: "empty" });
    assert.ok(typeof result === "object" && result.ok === false);
    assert.match(text(result), /^git commit failed \(exit code 1\)\n.*nothing to commit/s);
  },
);

Deno.test("git_commit stages a deleted file (needs git)", needs("git"), async () => {
  using wt = tempWorktree();
  makeRepo(wt.dir);
  Deno.removeSync(`${wt.dir}/a.txt`);
  assert.match(text(await commit(wt.dir, { message: "rm", add: ["a.txt"] })), / 1 file changed/);
  assert.equal(git(wt.dir, "ls-files"), "");
});
