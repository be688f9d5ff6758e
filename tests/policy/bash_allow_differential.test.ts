/**
 * Differential test of bash_allow against bash itself: a seeded generator builds commands from
 * the allowed prefixes and a pool of hostile arguments (late options, scripts that run or write,
 * paths that reach out); every command svc would allow without asking is then run by bash in a
 * scratch worktree. None may write or run anything outside it (or into its .git/.svc), nor print
 * the secret kept outside. The harness first proves it sees such escapes.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { runCommandTool } from "../../plugins/svc-core-exec/src/run_command.ts";

const SEED = 0x5eed_0009;
const COMMANDS = 2_000;
/** Wall-clock budget for running allowed commands; deciding all of them is not limited. */
const RUN_BUDGET_MS = 12_000;
/** Fewer allowed commands than this means the generator lost its teeth. */
const MIN_RUN = 80;

const ALLOW = [
  ..."sed awk grep cat head wc ls find sort tar cp mv rm touch tee echo printf cd dd cut diff"
    .split(" "),
  "git status",
  "git log",
  "git diff",
  "git grep",
  "git show",
  "xargs",
  "env",
];

/** Fragments, already shell-quoted, used with any command. OUT is the folder outside. */
const GENERAL = [
  "-n",
  "-i",
  "-e",
  "-f",
  "-r",
  "-R",
  "-s",
  "-v",
  "-x",
  "-o",
  "-t",
  "-C",
  "-I",
  "-a",
  "-l",
  "--",
  "-F:",
  "--in-place=.bak",
  "--expr=p",
  "'--to-com=touch OUT/EXEC'",
  "'--open=touch OUT/EXEC'",
  "-delete",
  "-exec",
  "--output=OUT/W",
  "-C..",
  "-t..",
  "-tOUT",
  "-t.git",
  "-o.git/config",
  "-f../outside/secret.txt",
  "--file=OUT/secret.txt",
  "if=../outside/secret.txt",
  "of=../outside/W",
  "f.txt",
  "sub",
  "sub/g.txt",
  "../outside/secret.txt",
  "OUT/secret.txt",
  "~/secret.txt",
  "up/outside/secret.txt",
  "link",
  "sub/../../outside/secret.txt",
  "*",
  "'*'",
  "../*/secret.txt",
  "*/outside/secret.txt",
  "{..,.}/outside/secret.txt",
  "{,../outside/}secret.txt",
  ".git/config",
  ".svc/config.json",
  ".git/hooks/pre-commit",
  "a.tar",
  "x.sed",
  "$HOME/secret.txt",
  "-",
  "/dev/null",
  "OUT/W",
  "../W",
  "OUT",
  "..",
  ".",
  "~",
  ".*",
  "sub/hop/../secret.txt",
  "sub/hop/../outside/secret.txt",
  "$_",
  "HEAD",
  "line",
  "'1e touch OUT/EXEC'",
  "'w OUT/W'",
];
const SED = [
  "-n",
  "-E",
  "-s",
  "-z",
  "-u",
  "-i",
  "-i.bak",
  "--in-place",
  "-e",
  "--expression=p",
  "-f",
  "--posix",
  "--debug",
  "-l",
  "--",
  "p",
  "'1e touch OUT/EXEC'",
  "'w OUT/W'",
  "s/a/b/",
  "'s/a/b/e'",
  "'$a [core] fsmonitor = \"touch OUT/EXEC\"'",
  "'r OUT/secret.txt'",
  "'R ../outside/secret.txt'",
  "'/line/p'",
  "'s/a/b/w OUT/W'",
  "'s/.*/touch OUT\\/EXEC/e'",
  "x.sed",
  "1d",
  "'1!G;h;$!d'",
];
const AWK = [
  "-F:",
  "-F/",
  "-v",
  "x=1",
  "-f",
  "x.sed",
  "--",
  "'{print}'",
  "'BEGIN{system(\"touch OUT/EXEC\")}'",
  "'{print > \"OUT/W\"}'",
  "'BEGIN{while((getline l < \"OUT/secret.txt\")>0) print l}'",
  "'{print $1}'",
  "'BEGIN{print ENVIRON[\"HOME\"]}'",
  "'{print | \"sh\"}'",
];
const FIND = [
  ".",
  "sub",
  "..",
  "OUT",
  "-name",
  "'*.txt'",
  "-exec",
  "touch",
  "OUT/EXEC",
  "{}",
  "\\;",
  "-delete",
  "-fprint",
  "OUT/W",
  "-maxdepth",
  "1",
  "-L",
  "-type",
  "f",
  "-newer",
  "f.txt",
  "-print",
  "up",
];
const GIT = [
  "-s",
  "--oneline",
  "-1",
  "HEAD",
  "--",
  "--output=OUT/W",
  "--out=OUT/W",
  "--ext",
  "--textconv",
  "'--open=touch OUT/EXEC'",
  "-O",
  "line",
  "-p",
  "--stat",
  "--no-index",
  "f.txt",
  "-e",
  "-i",
  "../outside/secret.txt",
  "OUT/secret.txt",
  "--ext-diff",
];
const TAR = [
  "-cf",
  "-",
  "-xf",
  "a.tar",
  "-C",
  "..",
  "-C..",
  "-tf",
  "'--to-com=touch OUT/EXEC'",
  "'--to-command=touch OUT/EXEC'",
  "-O",
  "--checkpoint",
  "-I",
  "f.txt",
  "-xOf",
  "cf",
  "xf",
  "../outside/secret.txt",
  "-h",
  "up",
];
const WRITER = [
  "-r",
  "-f",
  "-t",
  "-t..",
  "-t.git",
  "-o",
  "-o.git/config",
  "f.txt",
  "sub",
  "x.sed",
  "..",
  "OUT/W",
  "../W",
  ".git/hooks/pre-commit",
  "of=../outside/W",
  "if=../outside/secret.txt",
  "-i",
  "/dev/null",
  "--target-directory=..",
  "up/W",
  "sub/hop/../W",
  "-s",
  "-L",
  "link",
  "out.txt",
];
const FAMILY: Record<string, string[]> = {
  sed: SED,
  awk: AWK,
  find: FIND,
  git: GIT,
  tar: TAR,
  cp: WRITER,
  mv: WRITER,
  rm: WRITER,
  touch: WRITER,
  tee: WRITER,
  dd: WRITER,
  sort: WRITER,
};
const REDIRECTS = [
  "> OUT/W",
  "> ../W",
  ">> .git/config",
  "> .svc/config.json",
  "< ../outside/secret.txt",
  "< OUT/secret.txt",
  "> out.txt",
  "2>&1",
  "2> /dev/null",
  "< f.txt",
  "> up/W",
];
const SEPARATORS = [" && ", " ; ", " | ", " || "];

/**
 * As root, generated commands run as nobody (setpriv) in a scratch folder nobody owns: a bash_allow
 * bug must not reach the machine (an early run of this test removed /dev/null).
 */
const AS_NOBODY = Deno.uid() === 0;
const NOBODY = "65534";
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/** mulberry32: a small seeded generator, so a failure names a command that reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(count: number, out: string): string[] {
  const next = random(SEED);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const segment = () => {
    const prefix = pick(ALLOW);
    const family = FAMILY[prefix.split(" ")[0]] ?? GENERAL;
    const words = [prefix];
    const n = 1 + Math.floor(next() * 5);
    for (let i = 0; i < n; i++) words.push(pick(next() < 0.75 ? family : GENERAL));
    if (next() < 0.25) words.push(pick(REDIRECTS));
    return words.join(" ");
  };
  const commands: string[] = [];
  for (let i = 0; i < count; i++) {
    let command = segment();
    if (next() < 0.3) command += pick(SEPARATORS) + segment();
    commands.push(command.replaceAll("OUT", out));
  }
  return commands;
}

interface Scratch {
  root: string;
  wt: string;
  out: string;
  secret: string;
  /** Files outside the worktree and its control files, and their text, as set up. */
  fixtures: Map<string, string>;
  [Symbol.dispose](): void;
}

function scratch(): Scratch {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-diff-" }));
  const wt = `${root}/wt`, out = `${root}/outside`;
  const secret = `secret-${crypto.randomUUID()}`;
  Deno.mkdirSync(wt);
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: wt, stdout: "null", stderr: "null" }).outputSync();
  git("init", "-q", ".");
  restore(wt);
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
  const fixtures = new Map([
    [`${out}/secret.txt`, `${secret}\n`],
    [`${root}/home/secret.txt`, `${secret}\n`],
    [`${root}/secret.txt`, `${secret}\n`],
    [`${root}/away/x`, ""],
    [`${wt}/.git/config`, Deno.readTextFileSync(`${wt}/.git/config`)],
    [`${wt}/.svc/config.json`, "{}\n"],
  ]);
  const t = {
    root,
    wt,
    out,
    secret,
    fixtures,
    [Symbol.dispose]: () => Deno.removeSync(root, { recursive: true }),
  };
  repair(t, []);
  return t;
}

/** Removes what a command added outside (or in the control files) and rewrites the fixtures. */
function repair(t: Scratch, changed: string[]): void {
  for (const path of changed) {
    if (t.fixtures.has(path) || !path.startsWith(t.root)) continue;
    try {
      Deno.removeSync(path, { recursive: true });
    } catch {
      // already gone, or a folder the fixtures need again below
    }
  }
  for (const [path, text] of t.fixtures) {
    Deno.mkdirSync(dirname(path), { recursive: true });
    try {
      if (Deno.readTextFileSync(path) === text) continue;
      Deno.removeSync(path, { recursive: true });
    } catch {
      // missing or not a file: written below
    }
    Deno.writeTextFileSync(path, text);
  }
  handOver(t.root);
}

/** Gives the scratch folder to nobody when commands run as nobody. */
function handOver(root: string): void {
  if (!AS_NOBODY) return;
  new Deno.Command("chown", { args: ["-R", "-h", `${NOBODY}:${NOBODY}`, root] }).outputSync();
}

/** Puts the scratch worktree's fixtures back after a command moved or removed them. */
function restore(wt: string): boolean {
  let restored = false;
  Deno.mkdirSync(`${wt}/sub`, { recursive: true });
  Deno.mkdirSync(`${wt}/.svc`, { recursive: true });
  const files: Record<string, string> = {
    "f.txt": "a line\n",
    "sub/g.txt": "another line\n",
    "x.sed": "1e touch ../outside/EXEC\n",
    ".svc/config.json": "{}\n",
  };
  for (const [path, text] of Object.entries(files)) {
    try {
      Deno.lstatSync(`${wt}/${path}`);
    } catch {
      Deno.writeTextFileSync(`${wt}/${path}`, text);
      restored = true;
    }
  }
  const links: Record<string, string> = {
    up: "..",
    link: "../outside/secret.txt",
    "sub/hop": "../../away",
  };
  for (const [path, target] of Object.entries(links)) {
    try {
      Deno.lstatSync(`${wt}/${path}`);
    } catch {
      Deno.symlinkSync(target, `${wt}/${path}`);
      restored = true;
    }
  }
  try {
    Deno.lstatSync(`${wt}/a.tar`);
  } catch {
    new Deno.Command("tar", { args: ["-cf", "a.tar", "f.txt"], cwd: wt }).outputSync();
    restored = true;
  }
  return restored;
}

/**
 * Identity of every file outside the worktree and of its control files (.git config and hooks,
 * .svc): path to kind, size, inode and change time.
 */
function snapshot(t: Scratch): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (path === t.wt) {
        for (const control of [".git/config", ".git/hooks", ".svc"]) visit(`${t.wt}/${control}`);
        continue;
      }
      visit(path);
    }
  };
  const visit = (path: string) => {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      seen.set(path, "missing");
      return;
    }
    seen.set(path, `${info.isDirectory}:${info.size}:${info.ino}:${info.ctime?.getTime()}`);
    if (info.isDirectory) walk(path);
  };
  walk(t.root);
  return seen;
}

function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p));
}

/** Runs one command as run_command would (bash -c, stdin empty) with HOME in the scratch. */
async function run(command: string, t: Scratch): Promise<string> {
  const bash = ["bash", "-c", command];
  const argv = AS_NOBODY
    ? [SETPRIV!, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...bash]
    : bash;
  const result = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: t.wt,
    clearEnv: true,
    env: { HOME: `${t.root}/home`, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", LANG: "C" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(5_000),
  }).output();
  const text = new TextDecoder();
  return text.decode(result.stdout) + text.decode(result.stderr);
}

/** What `command` did outside the scratch worktree, or an empty list. */
async function escapes(command: string, t: Scratch): Promise<string[]> {
  if (restore(t.wt)) handOver(t.root);
  const before = snapshot(t);
  const output = await run(command, t);
  const changed = changes(before, snapshot(t));
  const found = changed.map((p) => `changed ${p}`);
  if (output.includes(t.secret)) found.push("printed the secret kept outside");
  if (changed.length) repair(t, changed);
  return found;
}

/** As root without setpriv the generated commands cannot be confined, so both tests are skipped. */
const ignore = AS_NOBODY && !SETPRIV;

Deno.test({
  name: "the differential harness sees writes, runs and reads outside the scratch worktree",
  ignore,
}, async () => {
  using t = scratch();
  const attacks = [
    `sed -n p -e '1e touch ${t.out}/EXEC' f.txt`,
    "cat ../outside/secret.txt",
    "echo x > up/W",
    "sed '$a x' -i .git/config",
  ];
  const seen = [];
  for (const command of attacks) seen.push((await escapes(command, t)).length > 0);
  assert.deepEqual(seen, [true, true, true, true]);
});

Deno.test({
  name: "no command bash_allow lets through writes, runs or reads outside the worktree under bash",
  ignore,
}, async () => {
  using t = scratch();
  const commands = generate(COMMANDS, t.out);
  const allowed = commands.filter((command) =>
    runCommandTool.resolvePolicy!({ command, _permissions: { bash_allow: ALLOW } }, t.wt) ===
      undefined
  );
  const started = performance.now();
  const failures: string[] = [];
  let ran = 0;
  for (const command of allowed) {
    if (performance.now() - started > RUN_BUDGET_MS) break;
    const found = await escapes(command, t);
    ran++;
    if (found.length) failures.push(`${command}\n  ${found.join("\n  ")}`);
  }
  assert.deepEqual(failures, []);
  assert.ok(ran >= MIN_RUN, `only ${ran} of ${allowed.length} allowed commands ran`);
});
