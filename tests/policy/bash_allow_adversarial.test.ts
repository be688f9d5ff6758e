/**
 * Adversarial bash_allow suite. Every attack is first run by bash directly to prove it really
 * creates the canary; bash_allow must deny it even though the allowlist names the wrappers.
 * Tricky commands that pass are then run through run_command: no canary may appear.
 */
import assert from "node:assert/strict";
import { bashAllowed } from "../../src/policy/bash_allow.ts";
import { runCommandTool } from "../../plugins/svc-core-exec/src/run_command.ts";
import { makeContext } from "../../plugins/svc-core-exec/tests/_ctx.ts";

const ALLOW = [
  "git status",
  ...("ls echo cat grep head tee cd git env xargs sh bash eval exec " +
    "command timeout nohup find sed awk node deno python3").split(" "),
];

/** [family, command, canary location relative to the worktree] */
const ATTACKS: [string, string, string][] = [
  ["chain ;", "ls; touch CANARY", "CANARY"],
  ["chain &&", "ls&&touch CANARY", "CANARY"],
  ["chain ||", "ls missing || touch CANARY", "CANARY"],
  ["chain &", "ls & touch CANARY", "CANARY"],
  ["pipe", "ls | touch CANARY", "CANARY"],
  ["pipe |&", "ls |& touch CANARY", "CANARY"],
  ["newline", "ls\ntouch CANARY", "CANARY"],
  ["substitution", "echo $(touch CANARY)", "CANARY"],
  ["substitution in quotes", 'echo "$(touch CANARY)"', "CANARY"],
  ["backticks", "echo `touch CANARY`", "CANARY"],
  ["backticks in quotes", 'echo "`touch CANARY`"', "CANARY"],
  ["arithmetic", "echo $(( $(touch CANARY) 1 ))", "CANARY"],
  ["process substitution <()", "cat <(touch CANARY)", "CANARY"],
  ["process substitution >()", "echo x > >(touch CANARY); sleep 0.2", "CANARY"],
  ["here-string", "cat <<< $(touch CANARY)", "CANARY"],
  ["redirect outside", "echo x > ../CANARY", "../CANARY"],
  ["redirect append outside", "echo x >> ../CANARY", "../CANARY"],
  ["redirect clobber outside", "echo x >| ../CANARY", "../CANARY"],
  ["redirect both outside", "echo x &> ../CANARY", "../CANARY"],
  ["redirect via symlink", "echo x > up/CANARY", "../CANARY"],
  ["tee outside", "echo x | tee ../CANARY", "../CANARY"],
  ["cd out", "cd .. && echo x > CANARY", "../CANARY"],
  ["env wrapper", "env touch CANARY", "CANARY"],
  ["xargs wrapper", "echo CANARY | xargs touch", "CANARY"],
  ["sh -c", "sh -c 'touch CANARY'", "CANARY"],
  ["bash -c", "bash -c 'touch CANARY'", "CANARY"],
  ["pipe into sh", "echo touch CANARY | sh", "CANARY"],
  ["eval", "eval touch CANARY", "CANARY"],
  ["exec", "exec touch CANARY", "CANARY"],
  ["command", "command touch CANARY", "CANARY"],
  ["timeout", "timeout 5 touch CANARY", "CANARY"],
  ["find -exec", "find . -maxdepth 0 -exec touch CANARY \\;", "CANARY"],
  ["find -execdir", "find . -maxdepth 0 -execdir touch CANARY \\;", "CANARY"],
  ["sed e command", "sed -n '1e touch CANARY' f.txt", "CANARY"],
  ["sed s///e", "sed -n 's/.*/touch CANARY/ep' f.txt", "CANARY"],
  ["sed w", "sed -n 'w CANARY' f.txt", "CANARY"],
  ["sed -i", "sed -i 's/a/b/' ../outside.txt && touch CANARY", "CANARY"],
  ["awk system", "awk 'BEGIN{system(\"touch CANARY\")}'", "CANARY"],
  ["awk redirect", "awk 'BEGIN{print 1 > \"CANARY\"}'", "CANARY"],
  ["git -c alias", "git -c alias.x='!touch CANARY' x", "CANARY"],
  ["python -c", 'python3 -c \'open("CANARY", "w")\'', "CANARY"],
  [
    "node --import data:",
    `node --import='data:text/javascript,import("fs").then((f) => f.writeFileSync("CANARY", ""))' f.js`,
    "CANARY",
  ],
  ["deno data: module", `deno run -A 'data:,Deno.writeTextFileSync("CANARY", "")'`, "CANARY"],
  ["assignment changes lookup", "PATH=.:$PATH ls", "CANARY"],
  ["variable command word", "$0 -c 'touch CANARY'", "CANARY"],
  ["function definition", "ls() { touch CANARY; }; ls", "CANARY"],
  ["subshell", "(touch CANARY)", "CANARY"],
  ["glob command word", "/usr/bin/tou?h CANARY", "CANARY"],
  ["brace command word", "{touch,CANARY}", "CANARY"],
];

const TRICKY_BUT_ALLOWED = [
  "echo 'a; touch CANARY'",
  'echo "a && touch CANARY"',
  "echo a\\;touch CANARY",
  "echo '$(touch CANARY)'",
  'echo "\\$(touch CANARY)"',
  "echo '`touch CANARY`'",
  "grep -c 'x|touch CANARY' f.txt",
  "echo '|' '&&' ';' \"||\" '>' ../CANARY",
  "echo a#b > sub/out.txt 2>&1",
  "cat f.txt | head -1 > out.txt",
  "ls *.txt | grep -v CANARY",
  "cd sub && echo $HOME > here.txt",
  "git status -s 2>/dev/null | head -5",
  "find . -name '*.txt' -newer f.txt",
  "sed -n 's/a/touch CANARY/p' f.txt",
  "awk '{print \"touch CANARY\"}' f.txt",
];

function setup(): { root: string; wt: string; [Symbol.dispose](): void } {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-adv-" }));
  const wt = `${root}/wt`;
  Deno.mkdirSync(`${wt}/sub`, { recursive: true });
  Deno.writeTextFileSync(`${wt}/f.txt`, "a line\n");
  Deno.writeTextFileSync(`${wt}/f.js`, "");
  Deno.writeTextFileSync(`${root}/outside.txt`, "a\n");
  Deno.writeTextFileSync(`${wt}/ls`, "#!/bin/sh\ntouch CANARY\n", { mode: 0o755 });
  Deno.symlinkSync("..", `${wt}/up`);
  return { root, wt, [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }) };
}

const present = (path: string) => {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

Deno.test("bash_allow denies every bypass family, each proven to work when run directly", async () => {
  using t = setup();
  for (const [family, command, canary] of ATTACKS) {
    const target = `${t.wt}/${canary}`;
    await new Deno.Command("bash", {
      args: ["-c", command],
      cwd: t.wt,
      stdout: "null",
      stderr: "null",
    })
      .output();
    assert.equal(present(target), true, `${family}: the attack itself should create the canary`);
    Deno.removeSync(target);
    const verdict = bashAllowed(command, { prefixes: ALLOW, worktree: t.wt });
    assert.equal(verdict.ok, false, `${family}: ${JSON.stringify(command)} passed`);
  }
});

Deno.test("bash_allow passes tricky but safe commands and running them creates no canary", async () => {
  using t = setup();
  const ctx = makeContext(t.wt);
  for (const command of TRICKY_BUT_ALLOWED) {
    const verdict = bashAllowed(command, { prefixes: ALLOW, worktree: t.wt });
    assert.equal(verdict.ok, true, `${JSON.stringify(command)}: ${verdict.reason}`);
    const result = await runCommandTool.run({ command }, ctx);
    assert.equal(typeof result === "string" ? true : result.ok !== false, true, command);
    assert.equal(present(`${t.wt}/CANARY`) || present(`${t.root}/CANARY`), false, command);
    assert.equal(present(`${t.wt}/sub/CANARY`), false, command);
  }
});

/** [family, command, whether the attack took effect] for options GNU tools read after operands. */
const LATE_OPTIONS: [string, string, (wt: string) => boolean][] = [
  ["sed -e after the script", "sed -n p -e '1e touch CANARY' f.txt", canary],
  ["sed -f after an operand", "sed p f.txt -f x.sed", canary],
  [
    "sed -i after the operand rewrites svc's config",
    "sed s/ask/allow/ .svc/config.json -i",
    (wt) => Deno.readTextFileSync(`${wt}/.svc/config.json`).includes("allow"),
  ],
  [
    "sed --in-place=suffix after the operands",
    "sed -n p f.txt --in-place=.bak",
    (wt) => present(`${wt}/f.txt.bak`),
  ],
  [
    "sed -i plants a git fsmonitor that the next git status runs",
    `sed '$a [core]\\n\\tfsmonitor = "touch CANARY; false"' -i .git/config`,
    (wt) => {
      new Deno.Command("git", { args: ["status"], cwd: wt, stdout: "null", stderr: "null" })
        .outputSync();
      return canary(wt);
    },
  ],
  ["tar abbreviated --to-command", "tar -xf a.tar --to-com='touch CANARY; cat'", canary],
  ["git grep abbreviated --open-files-in-pager", "git grep --open='touch CANARY' line", canary],
  ["cp -t with an attached value into .git", "cp -t.git x", (wt) => present(`${wt}/.git/x`)],
];

function canary(wt: string): boolean {
  return present(`${wt}/CANARY`);
}

/** A git worktree holding the files the late-option attacks use. */
function gitSetup(): { wt: string; [Symbol.dispose](): void } {
  const wt = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-late-" }));
  Deno.writeTextFileSync(`${wt}/f.txt`, "a line\n");
  Deno.writeTextFileSync(`${wt}/x.sed`, "1e touch CANARY\n");
  Deno.mkdirSync(`${wt}/.svc`);
  Deno.writeTextFileSync(`${wt}/.svc/config.json`, '{"tool_permission":{"bash":"ask"}}\n');
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: wt, stdout: "null", stderr: "null" }).outputSync();
  git("init", "-q", ".");
  git("add", "f.txt");
  new Deno.Command("tar", { args: ["-cf", "a.tar", "f.txt"], cwd: wt }).outputSync();
  // cp -t.git x copies this file into .git: the stand-in for a planted config or hook.
  Deno.writeTextFileSync(`${wt}/x`, "");
  return { wt, [Symbol.dispose]: () => Deno.removeSync(wt, { recursive: true }) };
}

Deno.test("bash_allow checks options after operands and abbreviated long options, each proven under bash", async () => {
  const allow = [...ALLOW, "tar", "cp"];
  for (const [family, command, tookEffect] of LATE_OPTIONS) {
    using t = gitSetup();
    await new Deno.Command("bash", {
      args: ["-c", command],
      cwd: t.wt,
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(tookEffect(t.wt), true, `${family}: the attack itself should take effect`);
    const verdict = bashAllowed(command, { prefixes: allow, worktree: t.wt });
    assert.equal(verdict.ok, false, `${family}: ${JSON.stringify(command)} passed`);
  }
});
