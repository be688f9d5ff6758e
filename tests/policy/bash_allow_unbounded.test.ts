/**
 * What bash_allow cannot bound by reading the command line asks unless the OS sandbox holds the
 * command: recursive reads that follow a symlink out of the worktree, and brace expansions that
 * make too many words. Each premise is first shown under plain bash, bounded (a symlinked "secret"
 * folder in a temp dir; a five-word expansion, never a bomb).
 */
import assert from "node:assert/strict";
import { bashAllowPolicy } from "../../src/policy/bash_allow.ts";
import { BraceCounter, sequenceLength } from "../../src/policy/bash_allow_braces.ts";
import { FOLLOW_REASON, LIST_REASON } from "../../src/policy/bash_allow_follow.ts";
import { decide, type Resolved } from "../../src/policy/evaluate.ts";

const SECRET = `api_key-${crypto.randomUUID()}`;
const ALLOW = ("grep egrep rg find cp tar rsync du ls zip echo printf cat wc chmod cpio cd sort")
  .split(" ");

/** A worktree with `docs -> ../secret` (a folder outside holding the key), like `~/.config/svc`. */
function setup(): { root: string; wt: string; [Symbol.dispose](): void } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-unbounded-" }));
  const wt = `${root}/wt`;
  Deno.mkdirSync(`${wt}/src`, { recursive: true });
  Deno.mkdirSync(`${root}/secret`);
  Deno.writeTextFileSync(`${root}/secret/config.json`, `{"key": "${SECRET}"}\n`);
  Deno.writeTextFileSync(`${wt}/src/main.ts`, "const api_key_name = 1;\n");
  Deno.symlinkSync("../secret", `${wt}/docs`);
  return { root, wt, [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }) };
}

async function bash(script: string, cwd: string): Promise<string> {
  const run = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(run.stdout);
}

const policy = (command: string, wt: string) =>
  bashAllowPolicy(command, { prefixes: ALLOW, worktree: wt });
const unbounded = (reason: string) => ({ action: "ask", reason, unlessSandboxed: true });
const follows = (command: string) => unbounded(`${FOLLOW_REASON}: ${command}`);

/** Recursive reads that print the secret through `docs` under bash (tools present here). */
const FOLLOWING_READS = [
  "grep -R api_key .",
  "grep -rn --dereference-recursive api_key",
  "grep -rnR api_key .",
  "grep api_key -r . -R",
  "rg -L api_key .",
  "rg --follow -uu api_key",
  "find -L . -name config.json",
  "find . -follow -name config.json",
  "tar -chf - .",
  "tar -c --dereference -f - .",
  "du -aL .",
  "ls -RL",
  "zip -qr0 - .",
];

Deno.test("a recursive read that follows links prints a secret outside the worktree under bash, and bash_allow asks unless sandboxed", async () => {
  using t = setup();
  const have = (tool: string) => bash(`command -v ${tool}`, t.wt).then((out) => out !== "");
  for (const command of FOLLOWING_READS) {
    const tool = command.split(" ")[0];
    if (!(await have(tool))) continue;
    const printed = await bash(command, t.wt);
    const leak = /^(find|du|ls)/.test(command) ? "config.json" : SECRET;
    assert.ok(printed.includes(leak), `premise: ${command} should reach the secret folder`);
    assert.deepEqual(policy(command, t.wt), follows(command), command);
  }
});

Deno.test("plain grep -r skips links it meets inside and follows only command-line ones, which already ask as paths outside", async () => {
  using t = setup();
  assert.ok(!(await bash("grep -r api_key .", t.wt)).includes(SECRET), "grep -r . skips docs");
  assert.ok((await bash("grep -r api_key docs", t.wt)).includes(SECRET), "grep -r docs follows");
  assert.ok((await bash("grep -r api_key *", t.wt)).includes(SECRET), "a glob names docs too");
  assert.equal(policy("grep -rn api_key .", t.wt), undefined);
  assert.equal(policy("grep -r --directories=recurse api_key src", t.wt), undefined);
  for (const command of ["grep -r api_key docs", "grep -r api_key *"]) {
    // A path outside is a plain ask: the sandbox does not lift it.
    assert.deepEqual(policy(command, t.wt), {
      action: "ask",
      reason: `names a path outside the worktree: ${command.split(" ").pop()}`,
    });
  }
});

Deno.test("recursive options are found in clusters, after operands, as abbreviations, but not after --", () => {
  using t = setup();
  const asks = [
    "grep -nR x",
    "grep x . -iR",
    "grep --deref x .",
    "egrep -R x",
    "grep -r x {-R,.}",
    "find . -name x -L",
    "find -HL .",
    "cp -r src copy",
    "cp -aL src copy",
    "cp --recursive --dereference src copy",
    "tar cf a.tar src",
    "tar -xhf a.tar",
    "tar -rf a.tar src",
    "rsync -a src copy",
    "rsync -L src/main.ts copy",
    "ls -lR --dereference",
    "zip a.zip -r src",
    "chmod -RL u+w src",
  ];
  const unchanged = [
    "grep -r -- -R .",
    "grep -r --include=*.ts x .",
    "grep -rl x src",
    "rg -n x",
    "find . -name '*.ts'",
    "find -H . -type l",
    "cp -a src copy",
    "cp -R src copy",
    "tar -tvf a.tar",
    "tar xzf a.tar",
    "du -sh src",
    "ls -R src",
    "ls -L src",
    "zip a.zip src/main.ts",
    "chmod -R u+w src",
  ];
  for (const command of asks) {
    assert.equal(
      (policy(command, t.wt) as { unlessSandboxed?: boolean })?.unlessSandboxed,
      true,
      command,
    );
  }
  for (const command of unchanged) {
    const verdict = policy(command, t.wt) as { unlessSandboxed?: boolean } | undefined;
    assert.ok(verdict?.unlessSandboxed !== true, `${command}: ${JSON.stringify(verdict)}`);
  }
});

Deno.test("a glob may expand to a file named like an option, so it asks only when such a file exists", () => {
  using t = setup();
  Deno.removeSync(`${t.wt}/docs`);
  assert.equal(policy("grep -r api_key *", t.wt), undefined);
  Deno.writeTextFileSync(`${t.wt}/-R`, "");
  assert.deepEqual(policy("grep -r api_key *", t.wt), follows("grep -r api_key *"));
});

Deno.test("commands that read paths listed in a file or on stdin ask unless sandboxed", () => {
  using t = setup();
  for (const command of ["tar -T list.txt -f - -c", "rsync --files-from=list.txt . copy"]) {
    assert.deepEqual(policy(command, t.wt), unbounded(`${LIST_REASON}: ${command}`));
  }
  for (const command of ["wc --files0-from=list", "zip -@ a.zip", "cpio -o"]) {
    assert.equal(
      (policy(command, t.wt) as { reason: string }).reason.startsWith(LIST_REASON),
      true,
    );
  }
});

Deno.test("an existing deny stays a deny and a path outside stays a plain ask", () => {
  using t = setup();
  assert.deepEqual(policy("grep -R x . && rm -rf /", t.wt), {
    action: "deny",
    reason: "not in bash_allow: rm -rf /",
  });
  assert.deepEqual(policy("tar -cf ../a.tar src", t.wt), {
    action: "deny",
    reason: "file-writing commands may only name literal paths inside the worktree: " +
      "tar -cf ../a.tar src",
  });
  assert.deepEqual(policy("grep -R x ../other", t.wt), {
    action: "ask",
    reason: "names a path outside the worktree: ../other",
  });
  assert.deepEqual(policy("cat ../x {1..5000}", t.wt), {
    action: "ask",
    reason: "names a path outside the worktree: ../x",
  });
});

Deno.test("a brace expansion is counted as bash counts it, checked against bash on small words", async () => {
  const words = [
    "{1..5}",
    "{a,b}{c,d,e}",
    "{a,{b,c}}",
    "{{1..3},a}",
    "{1..3}x{4..5}",
    "{a..e..2}",
    "{1..10..3}",
    "{5..1}",
    "{-3..3}",
    "{+1..3}",
    "{1..3..0}",
    "{Z..a}",
    "{01..12}",
    "{a}",
    "{a}{b,c}",
    "{a}b,c}",
    "{},a}",
    "a{b{c,d}e",
    "{1...3}",
    "{1..3.}",
    "{1..}",
    "{a..5}",
    "{1..3,x}",
    "a{,}",
    "{a,b}{",
    "{1..3}{",
    "'{a,b}'",
    "\\{a,b}",
    "{a\\,b}",
    '"{"a,b}',
    "{a,'b,c'}",
    "${HOME}{a,b}",
    "{$HOME,b}",
    "{a,b}{1..4}{x,y,z}",
    "{{a,b},{c,d}}{{1..2},3}",
  ];
  const script = `set -f; for w in ${
    words.map((w) => `"$(for x in ${w}; do echo; done | wc -l)"`)
      .join(" ")
  }; do echo "$w"; done`;
  const expected = (await bash(script, "/")).trim().split("\n").map(Number);
  const counter = new BraceCounter();
  const counted = words.map((w) => counter.count(maskOf(w)));
  assert.deepEqual(
    words.map((w, i) => [w, counted[i]]),
    words.map((w, i) => [w, expected[i]]),
  );
});

/** The lexer's mask of one word: quoted and escaped characters as NUL (a small test-side lexer). */
function maskOf(word: string): string {
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c === "\\") out += "\0", i++;
    else if (c === "'" || c === '"') {
      const close = word.indexOf(c, i + 1);
      out += "\0".repeat(close - i - 1);
      i = close;
    } else out += c;
  }
  return out;
}

Deno.test("sequences bash would make too many words of count without being expanded", () => {
  assert.equal(sequenceLength("1..1000000000"), 1_000_000_000);
  assert.equal(sequenceLength("1..999999999..2"), 500_000_000);
  assert.equal(sequenceLength("1..99999999999999999999"), Infinity);
  assert.equal(sequenceLength("a..z"), 26);
  assert.equal(sequenceLength("1..z"), null);
  const counter = new BraceCounter();
  assert.equal(counter.count("{a,b}".repeat(30)), 2 ** 30);
  assert.equal(counter.count("{".repeat(20_000) + "a,b" + "}".repeat(20_000)), Infinity);
});

Deno.test("a brace expansion of more than 1000 words asks unless sandboxed, for echo and printf too", async () => {
  using t = setup();
  // The premise, bounded: bash turns one short word into many.
  assert.equal((await bash("echo {1..5}", t.wt)).trim().split(" ").length, 5);
  const bombs = [
    "echo " + "{a,b}".repeat(30),
    "echo {1..1000000000}",
    "printf '%s' {1..999999999}",
    "echo {1..99999999999999999999}",
    "echo {a..z}{a..z}{a..z}",
    "echo {1..600}; echo {1..600}",
    "cat src/main.ts {1..100000}",
    "cat < {1..100000}",
  ];
  for (const command of bombs) {
    assert.equal(
      (policy(command, t.wt) as { unlessSandboxed?: boolean })?.unlessSandboxed,
      true,
      command,
    );
  }
  assert.deepEqual(
    policy("echo {1..1000000000}", t.wt),
    unbounded("its brace expansions make more than 1000 words: {1..1000000000}"),
  );
  const small = ["echo {1..1000}", "echo {a,b}{c,d}", "echo '{1..100000}'", "echo \\{1..100000}"];
  for (const command of small) assert.equal(policy(command, t.wt), undefined, command);
});

Deno.test("an unlessSandboxed ask is lifted when the OS sandbox holds the command and asks otherwise", () => {
  using t = setup();
  const judge = (resolved: Resolved | undefined, holds: boolean) =>
    decide({
      tool: "run_command",
      category: "bash",
      permissions: { bash: "allow", bash_allow: ALLOW },
      toolsAllow: [],
      toolsDeny: [],
      resolved,
      sandbox: { holds },
    }).action;
  for (const command of ["grep -R api_key .", "echo {1..1000000000}"]) {
    const resolved = policy(command, t.wt);
    assert.deepEqual([judge(resolved, true), judge(resolved, false)], ["allow", "ask"], command);
  }
  const outside = policy("cat ../secret/config.json", t.wt);
  assert.deepEqual([judge(outside, true), judge(outside, false)], ["ask", "ask"]);
});
