import assert from "node:assert/strict";
import { register_tools } from "../mod.ts";
import { clampTimeout } from "../../../src/tool/shell.ts";
import { runCommandTool } from "../src/run_command.ts";
import { hostProcesses, isAlive, makeContext, tempWorktree, text } from "./_ctx.ts";
import { sandboxKind } from "../../../src/sandbox/probe.ts";

/** Without the OS sandbox: `$!` is then a host pid the tests can watch. */
const BARE = { "sandbox.mode": "danger-full-access" };

const run = (command: string, dir: string, extra: Record<string, unknown> = {}) =>
  runCommandTool.run({ command, ...extra }, makeContext(dir));
const runBare = (command: string, dir: string, extra: Record<string, unknown> = {}) =>
  runCommandTool.run({ command, ...extra }, makeContext(dir, { config: BARE }));

async function waitDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  return !isAlive(pid);
}

/** Waits until no host process runs `words`; false when one still does after a second. */
async function waitGone(words: string[]): Promise<boolean> {
  for (let i = 0; i < 40 && hostProcesses(words).length; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return hostProcesses(words).length === 0;
}

const sandboxRuns = (await sandboxKind()).ok;

Deno.test("run_command reports exit code, stdout and stderr", async () => {
  using wt = tempWorktree();
  const result = await run("echo out; echo err >&2; exit 3", wt.dir);
  assert.deepEqual(result, { content: "exit code 3\nstdout:\nout\nstderr:\nerr" });
});

Deno.test("run_command runs in the worktree with stdin from /dev/null", async () => {
  using wt = tempWorktree();
  const result = await run("pwd; cat", wt.dir);
  assert.deepEqual(result, { content: `exit code 0\nstdout:\n${wt.dir}` });
});

Deno.test("without the sandbox, run_command kills the whole process group on timeout", async () => {
  using wt = tempWorktree();
  const started = Date.now();
  const result = await runBare("sleep 100 & echo $!; sleep 100", wt.dir, { timeout: 0.5 });
  const pid = Number(text(result).split("\n")[3]);
  assert.ok(Date.now() - started < 3000);
  assert.deepEqual(result, {
    content: `timed out after 0.5 s; process group killed\nexit code 137\nstdout:\n${pid}`,
    ok: false,
  });
  assert.equal(await waitDead(pid), true);
});

Deno.test("without the sandbox, run_command kills the whole process group when the turn is cancelled", async () => {
  using wt = tempWorktree();
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 300);
  const result = await runCommandTool.run(
    { command: "sleep 100 & echo $!; sleep 100" },
    makeContext(wt.dir, { signal: abort.signal, config: BARE }),
  );
  const pid = Number(text(result).split("\n")[3]);
  assert.deepEqual(result, {
    content: `cancelled; process group killed\nexit code 137\nstdout:\n${pid}`,
    ok: false,
  });
  assert.equal(await waitDead(pid), true);
});

Deno.test("run_command does not start when the turn is already cancelled", async () => {
  using wt = tempWorktree();
  const abort = new AbortController();
  abort.abort();
  const result = await runCommandTool.run(
    { command: "touch started" },
    makeContext(wt.dir, { signal: abort.signal }),
  );
  assert.deepEqual(result, {
    content: "cancelled; process group killed\nexit code -1\nstderr:\ncancelled before start",
    ok: false,
  });
  assert.equal(await Deno.stat(`${wt.dir}/started`).catch(() => null), null);
});

Deno.test("without the sandbox, run_command kills background jobs once the command exits", async () => {
  using wt = tempWorktree();
  const result = await runBare("sleep 100 >/dev/null 2>&1 & echo $!", wt.dir);
  const pid = Number(text(result).split("\n")[2]);
  assert.deepEqual(result, { content: `exit code 0\nstdout:\n${pid}` });
  assert.equal(await waitDead(pid), true);
});

Deno.test({
  name: "in the sandbox, the command's background jobs die with it on timeout, cancel and exit",
  ignore: !sandboxRuns,
  fn: async () => {
    using wt = tempWorktree();
    const marker = (n: number) => ["sleep", `${100 + n}.${Deno.pid}`];
    const line = (n: number) => `${marker(n).join(" ")} & test -d /proc/$! && echo running`;
    const timedOut = await run(`${line(1)}; sleep 100`, wt.dir, { timeout: 0.5 });
    assert.deepEqual(timedOut, {
      content: "timed out after 0.5 s; process group killed\nexit code 137\nstdout:\nrunning",
      ok: false,
    });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const cancelled = await runCommandTool.run(
      { command: `${line(2)}; sleep 100` },
      makeContext(wt.dir, { signal: abort.signal }),
    );
    assert.deepEqual(cancelled, {
      content: "cancelled; process group killed\nexit code 137\nstdout:\nrunning",
      ok: false,
    });
    const exited = await runCommandTool.run({ command: line(3) }, makeContext(wt.dir));
    assert.deepEqual(exited, { content: "exit code 0\nstdout:\nrunning" });
    for (const n of [1, 2, 3]) assert.equal(await waitGone(marker(n)), true, `sleep ${n} lives`);
  },
});

Deno.test("run_command never passes secrets, svc variables or shell hooks to the child", async () => {
  using wt = tempWorktree();
  const vars: Record<string, string> = {
    OPENAI_API_KEY: "sk-test",
    GITHUB_TOKEN: "ghp_test",
    AWS_SECRET_ACCESS_KEY: "x",
    PGPASSWORD: "x",
    SVC_FLEET_PORT: "1",
    DATABASE_URL: "postgres://user:pw@db/x",
    BASH_ENV: `${wt.dir}/hook.sh`,
    "BASH_FUNC_echo%%": `() { touch ${wt.dir}/canary; }`,
    // GNU tools would stop reading options at the first operand, unlike what bash_allow checks.
    POSIXLY_CORRECT: "1",
    PLAIN_SETTING: "kept",
  };
  Deno.writeTextFileSync(`${wt.dir}/hook.sh`, `touch ${wt.dir}/canary\n`);
  for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
  try {
    const result = text(await run("echo hi; env", wt.dir));
    const names = result.split("\n").map((l) => l.split("=")[0]);
    for (const k of Object.keys(vars).slice(0, 9)) assert.equal(names.includes(k), false, k);
    assert.ok(names.includes("PLAIN_SETTING") && names.includes("PATH") && names.includes("HOME"));
    assert.equal(await Deno.stat(`${wt.dir}/canary`).catch(() => null), null);
  } finally {
    for (const k of Object.keys(vars)) Deno.env.delete(k);
  }
});

Deno.test("run_command caps each stream keeping its head and tail", async () => {
  using wt = tempWorktree();
  const result = text(await run("head -c 100000 /dev/zero | tr '\\0' a; echo; echo END", wt.dir));
  const [code, label, head, marker, tail] = result.split("\n");
  assert.deepEqual([code, label, head.length, marker, tail.length], [
    "exit code 0",
    "stdout:",
    20480,
    "[... 59045 bytes omitted ...]",
    20475,
  ]);
  assert.ok(result.endsWith("a\nEND"));
});

Deno.test("run_command clamps the timeout to 600 s with a 120 s default", () => {
  assert.deepEqual([clampTimeout(undefined), clampTimeout(5), clampTimeout(1000)], [120, 5, 600]);
});

Deno.test("run_command denies a chained segment outside bash_allow and asks for paths outside", () => {
  using wt = tempWorktree();
  const resolve = (command: string, bash_allow: string[]) =>
    runCommandTool.resolvePolicy!({ command, _permissions: { bash_allow } }, wt.dir);
  assert.deepEqual(
    [
      resolve("git status && rm -rf x", ["git status"]),
      resolve("git status -s | head -5", ["git status", "head"]),
      resolve("rm -rf x", []),
      resolve("cat <<EOF", ["cat"]),
      resolve("cat ../notes.txt", ["cat"]),
    ],
    [
      { action: "deny", reason: "not in bash_allow: rm -rf x" },
      undefined,
      undefined,
      { action: "deny", reason: "heredocs and here-strings are not allowed" },
      { action: "ask", reason: "names a path outside the worktree: ../notes.txt" },
    ],
  );
});

Deno.test("svc-core-exec registers run_command with its aliases", () => {
  const tools: { name: string; aliases?: string[]; argAliases?: object; category: string }[] = [];
  register_tools({ add: (t) => tools.push(t) });
  assert.deepEqual(
    tools.map((t) => [t.name, t.category, t.aliases, t.argAliases]),
    [["run_command", "bash", ["bash", "exec"], { cmd: "command" }]],
  );
});
