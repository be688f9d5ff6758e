/**
 * A repository's `.git` can make git read outside it: `core.worktree` in its config moves the
 * work tree to `~/.config/svc` or `/`, and a `.git` file or link, a `commondir` or
 * `objects/info/alternates` takes another repository's data. Plain git proves each leak; the git
 * tools run git on the git dir and work tree svc found, and refuse a repository reading another
 * one until the worktree is trusted.
 */
import assert from "node:assert/strict";
import type { ToolContext } from "../../../src/plugin/api.ts";
import { gitCommitTool } from "../src/git_commit.ts";
import { gitTool } from "../src/git_tool.ts";
import { makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { git, makeRepo } from "./_repo.ts";
import { needs } from "../../../tests/_support/tools.ts";

const SECRET = "sk-foreign-secret-0815";

/** stdout of plain git (no hardening, no fixed repository) in `cwd`, whatever its exit code. */
function plainGit(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, env: { GIT_CONFIG_NOSYSTEM: "1" } })
    .outputSync();
  return new TextDecoder().decode(out.stdout);
}

/** Temp folders: `wt` (the worktree), `home` (with .config/svc) and `other` (a repository). */
function setup() {
  const folders = [tempWorktree(), tempWorktree(), tempWorktree()];
  const [wt, home, other] = folders.map((f) => f.dir);
  Deno.mkdirSync(`${home}/.config/svc`, { recursive: true });
  Deno.writeTextFileSync(`${home}/.config/svc/providers.json`, `{"openai":{"key":"${SECRET}"}}\n`);
  Deno.writeTextFileSync(`${home}/.config/svc/keys.txt`, "untracked\n");
  makeRepo(other);
  Deno.writeTextFileSync(`${other}/secret.txt`, `${SECRET}\n`);
  git(other, "add", "secret.txt");
  git(other, "commit", "-q", "-m", "secret");
  return {
    wt,
    home,
    other,
    otherHead: git(other, "rev-parse", "HEAD").trim(),
    [Symbol.dispose]: () => folders.forEach((f) => f[Symbol.dispose]()),
  };
}

const trusted = (ctx: ToolContext): ToolContext => ({ ...ctx, trusted: true });
const run = (ctx: ToolContext, subcommand: string, args: string[] = []) =>
  gitTool.run({ subcommand, args }, ctx);
const TRUST = "; run `svc trust` in the worktree to allow it";

/** A repository whose index has `path` with a placeholder, missing from the folder. */
function trackMissing(dir: string, path: string): void {
  makeRepo(dir);
  Deno.mkdirSync(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
  Deno.writeTextFileSync(`${dir}/${path}`, "placeholder\n");
  git(dir, "add", "--", path);
  git(dir, "commit", "-q", "-m", "placeholder");
  Deno.removeSync(`${dir}/${path}`);
}

Deno.test(
  "plain git follows core.worktree to another folder and prints its files (needs git)",
  needs("git"),
  () => {
    using t = setup();
    trackMissing(t.wt, "providers.json");
    git(t.wt, "config", "core.worktree", `${t.home}/.config/svc`);
    assert.ok(plainGit(t.wt, "diff").includes(SECRET));
    assert.ok(plainGit(t.wt, "status", "--short").includes("keys.txt"));
  },
);

Deno.test(
  "the git tools keep the work tree in the repository, whatever core.worktree says (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    trackMissing(t.wt, "providers.json");
    git(t.wt, "config", "core.worktree", `${t.home}/.config/svc`);
    const ctx = makeContext(t.wt);
    for (const c of [ctx, trusted(ctx)]) {
      assert.equal(await run(c, "status", ["--short"]), " D providers.json");
      const diff = text(await run(c, "diff"));
      assert.match(diff, /^-placeholder$/m);
      assert.ok(!diff.includes(SECRET));
      assert.equal(await run(c, "rev_parse", ["--show-toplevel"]), t.wt);
    }
    const committed = await gitCommitTool.run({ message: "all", add: ["."] }, ctx);
    assert.match(text(committed), /1 file changed, 1 deletion/);
    assert.ok(!plainGit(t.wt, "log", "-p").includes(SECRET));
  },
);

Deno.test(
  "core.worktree set to / prints /etc/passwd under plain git, not through the tool (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    const passwd = Deno.readTextFileSync("/etc/passwd").split("\n")[0];
    trackMissing(t.wt, "etc/passwd");
    git(t.wt, "config", "core.worktree", "/");
    assert.ok(plainGit(t.wt, "diff").includes(passwd));
    const diff = text(await run(makeContext(t.wt), "diff"));
    assert.match(diff, /^deleted file mode/m);
    assert.ok(!diff.includes(passwd));
  },
);

Deno.test(
  "plain git reads another repository through a gitfile, a link, commondir or alternates (needs git)",
  needs("git"),
  () => {
    using t = setup();
    const cases = attacks(t);
    for (const [name, arm] of Object.entries(cases)) {
      using wt = tempWorktree();
      const args = arm(wt.dir);
      assert.ok(plainGit(wt.dir, ...args).includes(SECRET), name);
    }
  },
);

/** Each attack arms a worktree and returns the plain git arguments that print the secret. */
function attacks(t: ReturnType<typeof setup>): Record<string, (dir: string) => string[]> {
  const show = ["show", `${t.otherHead}:secret.txt`];
  return {
    gitfile: (dir) => {
      Deno.writeTextFileSync(`${dir}/.git`, `gitdir: ${t.other}/.git\n`);
      return ["log", "-p"];
    },
    link: (dir) => {
      Deno.symlinkSync(`${t.other}/.git`, `${dir}/.git`);
      return ["log", "-p"];
    },
    commondir: (dir) => {
      makeRepo(dir);
      Deno.writeTextFileSync(`${dir}/.git/commondir`, `${t.other}/.git\n`);
      return ["log", "-p"];
    },
    "objects link": (dir) => {
      makeRepo(dir);
      Deno.removeSync(`${dir}/.git/objects`, { recursive: true });
      Deno.symlinkSync(`${t.other}/.git/objects`, `${dir}/.git/objects`);
      return show;
    },
    alternates: (dir) => {
      makeRepo(dir);
      Deno.writeTextFileSync(`${dir}/.git/objects/info/alternates`, `${t.other}/.git/objects\n`);
      return show;
    },
    "relative alternates": (dir) => {
      makeRepo(dir);
      const rel = `../../../${t.other.split("/").pop()}/.git/objects`;
      Deno.writeTextFileSync(`${dir}/.git/objects/info/alternates`, `# borrowed\n\n${rel}\n`);
      return show;
    },
    "alternates of alternates": (dir) => {
      makeRepo(dir);
      Deno.mkdirSync(`${dir}/vendor/objects/info`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/.git/objects/info/alternates`, `${dir}/vendor/objects\n`);
      Deno.writeTextFileSync(`${dir}/vendor/objects/info/alternates`, `${t.other}/.git/objects\n`);
      return show;
    },
  };
}

Deno.test(
  "the git tools refuse a repository that reads another one until it is trusted (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    const borrowed = "its objects/info/alternates borrows objects from outside it, so git " +
      "would read another repository";
    const expected: Record<string, (dir: string) => string> = {
      gitfile: (dir) =>
        `git refused: ${dir}/.git is a file (gitfile) naming a git directory at ` +
        `${t.other}/.git outside the repository, so git would read another repository${TRUST}`,
      link: (dir) =>
        `git refused: ${dir}/.git is a symbolic link naming a git directory at ` +
        `${t.other}/.git outside the repository, so git would read another repository${TRUST}`,
      commondir: (dir) =>
        `git refused for the repository at ${dir}: its .git/commondir takes ` +
        `the repository's data from outside it, so git would read another repository${TRUST}`,
      alternates: (dir) => `git refused for the repository at ${dir}: ${borrowed}${TRUST}`,
    };
    expected["objects link"] = (dir) =>
      `git refused for the repository at ${dir}: its .git/objects is a symbolic ` +
      `link to ${t.other}/.git/objects, outside it, so git would read another repository${TRUST}`;
    expected["relative alternates"] = expected.alternates;
    expected["alternates of alternates"] = expected.alternates;
    for (const [name, arm] of Object.entries(attacks(t))) {
      using wt = tempWorktree();
      const [subcommand, ...args] = arm(wt.dir);
      const ctx = makeContext(wt.dir);
      const refusal = { content: expected[name](wt.dir), ok: false };
      assert.deepEqual(await run(ctx, subcommand, args), refusal, name);
      assert.deepEqual(await run(ctx, "status"), refusal, name);
      assert.deepEqual(await gitCommitTool.run({ message: "m" }, ctx), refusal, name);
      assert.ok(text(await run(trusted(ctx), subcommand, args)).includes(SECRET), name);
    }
  },
);

Deno.test(
  "a gitfile or alternates inside the repository and a worktree in a subfolder still work (needs git)",
  needs("git"),
  async () => {
    using t = setup();
    makeRepo(t.wt);
    Deno.renameSync(`${t.wt}/.git`, `${t.wt}/.realgit`);
    Deno.writeTextFileSync(`${t.wt}/.git`, "gitdir: .realgit\n");
    Deno.mkdirSync(`${t.wt}/sub/objects`, { recursive: true });
    Deno.writeTextFileSync(`${t.wt}/.realgit/objects/info/alternates`, "../../sub/objects\n");
    Deno.writeTextFileSync(`${t.wt}/a.txt`, "two\n");
    const ctx = makeContext(`${t.wt}/sub`);
    assert.equal(await run(ctx, "diff", ["--name-only"]), "a.txt");
    assert.equal(await run(ctx, "rev_parse", ["--show-prefix"]), "sub/");
    assert.equal(await run(makeContext(t.wt), "log", ["--format=%s"]), "first");
  },
);

Deno.test(
  "a FIFO in the git dir is refused at once instead of hanging git (needs git)",
  needs("git"),
  async () => {
    using wt = tempWorktree();
    makeRepo(wt.dir);
    new Deno.Command("mkfifo", { args: [`${wt.dir}/.git/commondir`] }).outputSync();
    assert.deepEqual(await run(makeContext(wt.dir), "status"), {
      content: `git refused for the repository at ${wt.dir}: its git directory cannot be ` +
        `checked for reads outside it: ${wt.dir}/.git/commondir is not a regular file${TRUST}`,
      ok: false,
    });
  },
);
