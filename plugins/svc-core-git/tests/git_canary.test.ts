/**
 * A repository armed to run a canary-writing program through every config hook git offers
 * (pager, fsmonitor, external diff, diff driver command, textconv, clean/smudge/process filters,
 * hooks, gpg, ssh, aliases, attribute files). Plain git proves the trap fires; no call of the
 * git tools may fire it.
 */
import assert from "node:assert/strict";
import { gitTool } from "../src/git_tool.ts";
import { gitCommitTool } from "../src/git_commit.ts";
import { makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { git, makeRepo, present } from "./_repo.ts";
import { needs } from "../../../tests/_support/tools.ts";

function arm(dir: string): string {
  const canary = `${dir}/CANARY`;
  const hit = `${dir}/hit.sh`;
  Deno.writeTextFileSync(hit, `#!/bin/sh\necho "$0 $*" >> '${canary}'\ncat\n`, { mode: 0o755 });
  const config: [string, string][] = [
    ["core.pager", `${hit} pager`],
    ["pager.log", `${hit} pager-log`],
    ["core.fsmonitor", `${hit} fsmonitor`],
    ["diff.external", `${hit} external`],
    ["diff.evil.textconv", `${hit} textconv`],
    ["diff.evil.command", `${hit} diff-command`],
    ["filter.ev.clean", `${hit} clean`],
    ["filter.ev.smudge", `${hit} smudge`],
    ["filter.ev.required", "true"],
    ["filter.x=y.clean", `${hit} clean-eq`],
    ["filter.pr.process", `${hit} process`],
    ["core.hooksPath", ".githooks"],
    ["core.attributesFile", `${dir}/global-attributes`],
    ["gpg.program", `${hit} gpg`],
    ["commit.gpgSign", "true"],
    ["core.sshCommand", `${hit} ssh`],
    ["core.editor", `${hit} editor`],
    ["alias.status", `!${hit} alias`],
    ["gc.auto", "1"],
  ];
  for (const [key, value] of config) git(dir, "config", key, value);
  Deno.mkdirSync(`${dir}/.githooks`);
  const hooks = [
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-index-change",
  ];
  for (const hook of hooks) {
    for (const folder of [`${dir}/.githooks`, `${dir}/.git/hooks`]) {
      Deno.writeTextFileSync(`${folder}/${hook}`, `#!/bin/sh\n${hit} hook-${hook}\n`, {
        mode: 0o755,
      });
    }
  }
  Deno.writeTextFileSync(`${dir}/.gitattributes`, "*.txt filter=ev diff=evil\n*.eq filter=x=y\n");
  Deno.writeTextFileSync(`${dir}/.git/info/attributes`, "*.bin filter=pr diff=evil\n");
  Deno.writeTextFileSync(`${dir}/global-attributes`, "*.md filter=ev diff=evil\n");
  for (const name of ["b.bin", "c.md", "d.eq"]) Deno.writeTextFileSync(`${dir}/${name}`, "x\n");
  return canary;
}

Deno.test(
  "plain git fires the armed repository's canary (the trap is real) (needs git)",
  needs("git"),
  () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    const canary = arm(wt.dir);
    Deno.writeTextFileSync(`${wt.dir}/a.txt`, "two\n");
    git(wt.dir, "diff");
    git(wt.dir, "add", "b.bin", "d.eq");
    const fired = Deno.readTextFileSync(canary);
    for (const trap of ["fsmonitor", "clean", "diff-command", "process", "clean-eq"]) {
      assert.match(fired, new RegExp(`hit.sh ${trap}`), trap);
    }
  },
);

Deno.test(
  "no git tool call fires any program configured by the repository (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    const canary = arm(wt.dir);
    Deno.writeTextFileSync(`${wt.dir}/a.txt`, "two\n");
    const ctx = makeContext(wt.dir);
    const calls: [string, string[]][] = [
      ["status", []],
      ["status", ["--porcelain"]],
      ["diff", []],
      ["diff", ["--stat"]],
      ["diff", ["HEAD"]],
      ["log", ["-p", "-n", "1"]],
      ["log", ["--format=%H %s"]],
      ["show", ["HEAD"]],
      ["show", ["HEAD:a.txt"]],
      ["branch", ["-a", "-v"]],
      ["rev_parse", ["--abbrev-ref", "HEAD"]],
    ];
    for (const [subcommand, args] of calls) {
      const result = await gitTool.run({ subcommand, args }, ctx);
      assert.ok(
        typeof result === "string" || result.ok !== false,
        `${subcommand}: ${text(result)}`,
      );
      assert.equal(present(canary), false, `git ${subcommand} ${args.join(" ")} fired the canary`);
    }
    const committed = await gitCommitTool.run(
      { message: "armed commit", add: ["a.txt", "b.bin", "c.md", "d.eq", ".gitattributes"] },
      ctx,
    );
    assert.match(text(committed), /^\[main [0-9a-f]+\] armed commit\n 5 files changed/);
    assert.equal(present(canary), false, "git_commit fired the canary");
    assert.equal(git(wt.dir, "show", "HEAD:a.txt"), "two\n");
  },
);
