import assert from "node:assert/strict";
import { bashAllowed, RULES } from "../../src/policy/bash_allow.ts";
import { EXAMPLE_PREFIXES } from "../../src/policy/bash_allow_rules.ts";
import { sedScriptSafe } from "../../src/policy/bash_allow_args.ts";

function worktree(): { dir: string; [Symbol.dispose](): void } {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-bash-allow-" }));
  Deno.mkdirSync(`${dir}/sub`);
  return { dir, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

for (const [id, rule] of Object.entries(RULES)) {
  Deno.test(`bash_allow rule ${id} denies its match examples and passes its others`, () => {
    using wt = worktree();
    for (const command of rule.match) {
      const verdict = bashAllowed(command, { prefixes: EXAMPLE_PREFIXES, worktree: wt.dir });
      assert.equal(verdict.ok, false, `${JSON.stringify(command)} should be denied`);
      assert.ok(
        verdict.reason.startsWith(rule.reason),
        `${JSON.stringify(command)}: ${verdict.reason}`,
      );
    }
    for (const command of rule.notMatch) {
      const verdict = bashAllowed(command, { prefixes: EXAMPLE_PREFIXES, worktree: wt.dir });
      assert.deepEqual(verdict, {
        ok: true,
        reason: "every segment starts with an allowed prefix",
      }, JSON.stringify(command));
    }
  });
}

const PREFIX_CASES: [string[], string, boolean][] = [
  [["git status"], "git status", true],
  [["git status"], "git status -s", true],
  [["git status"], "git statusx", false],
  [["git status"], "git", false],
  [["git status"], "git log", false],
  [["git status"], "git  status\t--short", true],
  [["git status"], "'git' \"status\"", true],
  [["ls"], "lsblk", false],
  [["ls"], "ls -la", true],
  [["ls"], "/bin/ls", false],
  [["ls"], "ls && ls -a; ls | ls", true],
  [["ls"], "ls && lsblk", false],
  [["ls", "grep"], "ls | grep x", true],
  [["npm run test"], "npm run test -- --watch", true],
  [["npm run test"], "npm run testx", false],
  [["npm run test"], "npm run", false],
  [["ls && rm -rf /"], "ls", false],
  [["$X"], "$X", false],
  [["ls >x"], "ls", false],
  [[], "ls", false],
  [["  ls  "], "ls", true],
];

Deno.test("bash_allow matches prefixes on whole words", () => {
  using wt = worktree();
  for (const [prefixes, command, ok] of PREFIX_CASES) {
    assert.equal(
      bashAllowed(command, { prefixes, worktree: wt.dir }).ok,
      ok,
      `${prefixes} / ${command}`,
    );
  }
});

Deno.test("bash_allow denies a segment after && with the reason and the segment", () => {
  using wt = worktree();
  assert.deepEqual(
    bashAllowed("git status && rm -rf /", { prefixes: ["git status"], worktree: wt.dir }),
    {
      ok: false,
      reason: "not in bash_allow: rm -rf /",
    },
  );
});

Deno.test("bash_allow reports lexer failures without detail", () => {
  using wt = worktree();
  assert.deepEqual(bashAllowed("ls\nrm -rf /", { prefixes: ["ls", "rm"], worktree: wt.dir }), {
    ok: false,
    reason: "multi-line commands are not allowed",
  });
});

Deno.test("bash_allow judges redirections through symlinks by their real target", () => {
  using wt = worktree();
  Deno.symlinkSync("..", `${wt.dir}/up`);
  Deno.symlinkSync("sub", `${wt.dir}/down`);
  assert.deepEqual(
    ["echo x > up/o", "echo x > down/o", "echo x > up/missing/o"].map((c) =>
      bashAllowed(c, { prefixes: ["echo"], worktree: wt.dir }).ok
    ),
    [false, true, false],
  );
});

// A cd may fail, so later paths must be inside from every folder the chain may be in; `&&` runs
// the next segment only after a successful cd, `||` only after a failed one.
Deno.test("bash_allow tracks every folder a cd may have moved to, following && and ||", () => {
  using wt = worktree();
  Deno.mkdirSync(`${wt.dir}/sub/deep`);
  const ok = (c: string) => bashAllowed(c, { prefixes: ["cd", "echo"], worktree: wt.dir }).ok;
  assert.deepEqual(
    [
      ok("cd sub && cd deep && echo x > o"),
      ok("cd sub/deep && echo x > ../o"),
      ok("cd sub/deep; echo x > ../o"),
      ok("cd sub/deep | echo x > ../o"),
      ok("cd sub || echo x > ../o"),
      ok("cd sub && echo x || echo x > ../o"),
      ok("cd sub/deep && cd ../.. && cd .."),
    ],
    [true, true, false, false, false, false, false],
  );
});

Deno.test("bash_allow sed script parser accepts only non-writing, non-executing scripts", () => {
  const cases: [string, boolean][] = [
    ["p", true],
    ["1,/x/{s/a/b/g;p}", true],
    ["$!N;P;D", true],
    ["s/a\\/b/c/2", true],
    ["/x/a appended text; w ignored", true],
    ["s/a/b/w out", false],
    ["s/a/b/e", false],
    ["e id", false],
    ["1~2W out", false],
    ["s/a/b", false],
    ["v", false],
    ["b end; w x", false],
  ];
  assert.deepEqual(cases.map(([s]) => [s, sedScriptSafe(s)]), cases);
});

/** Decides in a worker and gives up after `limitMs`, so a decision that spins fails the test. */
function timedDecider(worktree: string, prefixes: string[]) {
  const worker = new Worker(new URL("./_bash_allow_worker.ts", import.meta.url), {
    type: "module",
  });
  return {
    decide(command: string, limitMs: number) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      return new Promise<{ verdict: { ok: boolean; reason: string }; ms: number } | null>(
        (done) => {
          timer = setTimeout(() => done(null), limitMs);
          worker.onmessage = (event) => done(event.data);
          worker.postMessage({ command, prefixes, worktree });
        },
      ).finally(() => clearTimeout(timer));
    },
    [Symbol.dispose]: () => worker.terminate(),
  };
}

Deno.test("bash_allow decides a 24-cd chain and a million braces in bounded time", async () => {
  using wt = worktree();
  const chain = (op: string) =>
    Array.from({ length: 24 }, (_, i) => `cd d${i}`).join(` ${op} `) + ` ${op} ls`;
  const cases: [string, { ok: boolean; reason: string }][] = [
    [chain("&&"), { ok: true, reason: "every segment starts with an allowed prefix" }],
    [chain(";"), {
      ok: false,
      reason: "the command is too long or complex to check: " +
        "its cd commands may leave it in more than 32 folders",
    }],
    ["echo " + "{".repeat(1_000_000), {
      ok: false,
      reason: "the command is too long or complex to check: it is longer than 32768 characters",
    }],
    ["ls " + "{".repeat(30_000), {
      ok: false,
      reason: "the command is too long or complex to check: a path is longer than 4096 characters",
    }],
    ["ls " + "{a,b}".repeat(20), {
      ok: false,
      reason: "the command is too long or complex to check: " +
        "a word expands to more than 256 alternatives",
    }],
  ];
  assert.equal(chain("&&").length, 232);
  using decider = timedDecider(wt.dir, ["cd", "ls", "echo"]);
  for (const [command, verdict] of cases) {
    // A generous bound: these took minutes before the analysis became linear.
    const result = await decider.decide(command, 10_000);
    assert.ok(result, `${command.slice(0, 40)}... was not decided within 10 s`);
    assert.deepEqual(result.verdict, verdict, command.slice(0, 40));
    assert.ok(result.ms < 2_000, `${command.slice(0, 40)}... took ${Math.round(result.ms)} ms`);
  }
});
