/**
 * Turn checkpoints and undo, driven through a real engine (fake provider, the real file_write,
 * file_edit and run_command tools) in temp worktrees; `svc undo` itself runs as a process.
 */
import assert from "node:assert/strict";
import { tools as editTools } from "../../plugins/svc-core-edit/mod.ts";
import { runCommandTool } from "../../plugins/svc-core-exec/src/run_command.ts";
import { type Harness, harness } from "../_support/engine.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { needs } from "../_support/tools.ts";
import { listCheckpoints } from "../../src/session/checkpoint.ts";
import { undoTurns } from "../../src/session/undo.ts";
import type { Session } from "../../src/session/session.ts";

const ALLOW = { tool_permission: { edit: "allow", bash: "allow" } };

/** A turn whose model makes `calls` in one round, then answers "done". */
function turn(...calls: Array<{ name: string; arguments: Record<string, unknown> }>): Reply[] {
  return [{ tool_calls: calls }, { text: "done" }];
}

const write = (path: string, content: string) => ({
  name: "file_write",
  arguments: { path, content },
});
const edit = (path: string, old: string, replacement: string) => ({
  name: "file_edit",
  arguments: { path, old, new: replacement },
});
const shell = (command: string) => ({ name: "run_command", arguments: { command } });

async function setup(script: Reply[], files: Record<string, string> = {}): Promise<Harness> {
  return await harness(script, {
    tools: [...editTools, runCommandTool],
    config: ALLOW,
    files,
  });
}

async function runTurns(h: Harness, count: number): Promise<Session> {
  const session = h.store.create("ses_undo_test");
  for (let i = 0; i < count; i++) {
    const result = await h.engine.runTurn(`turn ${i + 1}`, { session });
    assert.deepEqual(result.status, "ok", JSON.stringify(result.errors));
  }
  return session;
}

const read = (h: Harness, path: string) => Deno.readTextFile(`${h.worktree}/${path}`);
const exists = (h: Harness, path: string) =>
  Deno.lstat(`${h.worktree}/${path}`).then(() => true, () => false);

Deno.test("undo restores a turn's file_write and file_edit exactly and removes a created file", async () => {
  await using h = await setup(
    turn(write("new.txt", "fresh\n"), edit("a.txt", "one", "ONE"), write("b.txt", "over")),
    { "a.txt": "one\ntwo\n", "b.txt": "before\u00e9\r\n" },
  );
  await Deno.chmod(`${h.worktree}/a.txt`, 0o600);
  const session = await runTurns(h, 1);
  assert.deepEqual(await read(h, "a.txt"), "ONE\ntwo\n");
  // Checkpoints live beside the sessions, never among them.
  assert.deepEqual(await h.store.list(), ["ses_undo_test"]);
  assert.deepEqual((await listCheckpoints(h.worktree, session.name)).length, 1);

  const report = await undoTurns(h.worktree, session);
  assert.deepEqual(report.turns.length, 1);
  assert(report.turns[0].complete);
  assert.deepEqual(await read(h, "a.txt"), "one\ntwo\n");
  assert.deepEqual((await Deno.stat(`${h.worktree}/a.txt`)).mode! & 0o777, 0o600);
  assert.deepEqual(await read(h, "b.txt"), "before\u00e9\r\n");
  assert.deepEqual(await exists(h, "new.txt"), false);
  const last = session.data.messages.at(-1)!;
  assert.deepEqual(last.role, "command");
  assert.match(last.content!, /^undo: turn .*restored .*removed new.txt/);
  // Nothing left to undo.
  assert.deepEqual((await undoTurns(h.worktree, session)).turns.length, 0);
});

Deno.test("undo refuses a file changed after the turn unless forced or confirmed", async () => {
  await using h = await setup(turn(edit("a.txt", "one", "two"), write("c.txt", "new")), {
    "a.txt": "one",
  });
  const session = await runTurns(h, 1);
  await Deno.writeTextFile(`${h.worktree}/a.txt`, "mine");
  await Deno.writeTextFile(`${h.worktree}/c.txt`, "mine too");

  const refused = await undoTurns(h.worktree, session);
  assert.deepEqual(refused.turns[0].complete, false);
  assert.deepEqual(refused.turns[0].files.map((f) => f.action), ["refused", "refused"]);
  assert.deepEqual(await read(h, "a.txt"), "mine");
  assert.deepEqual(await read(h, "c.txt"), "mine too");

  const asked: string[] = [];
  const declined = await undoTurns(h.worktree, session, {
    confirm: (q) => (asked.push(q), Promise.resolve(false)),
  });
  assert.deepEqual(asked.length, 2);
  assert.deepEqual(declined.turns[0].complete, false);
  assert.deepEqual(await read(h, "a.txt"), "mine");

  const forced = await undoTurns(h.worktree, session, { force: true });
  assert(forced.turns[0].complete);
  assert.deepEqual(await read(h, "a.txt"), "one");
  assert.deepEqual(await exists(h, "c.txt"), false);
});

Deno.test("undo with turns takes several turns back, newest first", async () => {
  await using h = await setup([
    ...turn(write("a.txt", "v2")),
    ...turn(write("a.txt", "v3"), write("b.txt", "b")),
    ...turn(edit("a.txt", "v3", "v4")),
  ], { "a.txt": "v1" });
  const session = await runTurns(h, 3);
  assert.deepEqual(await read(h, "a.txt"), "v4");
  const one = await undoTurns(h.worktree, session);
  assert.deepEqual(await read(h, "a.txt"), "v3");
  assert.deepEqual(one.turns.length, 1);
  const two = await undoTurns(h.worktree, session, { turns: 5 });
  assert.deepEqual(two.turns.length, 2);
  assert.deepEqual(await read(h, "a.txt"), "v1");
  assert.deepEqual(await exists(h, "b.txt"), false);
});

Deno.test("a huge file is recorded as not undoable and the rest of the turn still undoes", async () => {
  const big = "x".repeat((2 << 20) + 10);
  await using h = await setup(turn(write("big.txt", "small"), write("a.txt", "new")), {
    "big.txt": big,
    "a.txt": "old",
  });
  const session = await runTurns(h, 1);
  const report = await undoTurns(h.worktree, session);
  const big_ = report.turns[0].files.find((f) => f.path === "big.txt")!;
  assert.deepEqual(big_.action, "not_undoable");
  assert.match(big_.why!, /larger than the checkpoint cap/);
  assert.deepEqual(await read(h, "a.txt"), "old");
  assert.deepEqual(await read(h, "big.txt"), "small");
});

Deno.test("shell changes are listed as not undoable outside a git repository", async () => {
  await using h = await setup(turn(shell("echo changed > s.txt")), { "s.txt": "orig" });
  const session = await runTurns(h, 1);
  assert.deepEqual(await read(h, "s.txt"), "changed\n");
  const report = await undoTurns(h.worktree, session);
  assert.deepEqual(report.turns[0].shell.map((s) => s.command), ["echo changed > s.txt"]);
  assert.match(report.turns[0].shellNote!, /^not undoable: the worktree is not the top of a git/);
  assert.deepEqual(await read(h, "s.txt"), "changed\n");
});

Deno.test(
  "shell changes to tracked files are restored from the git snapshot",
  needs("git"),
  async () => {
    await using h = await setup(
      turn(shell("echo changed > t.txt && rm gone.txt && echo x > untracked.txt")),
      { "t.txt": "committed\n", "gone.txt": "bye\n" },
    );
    const git = (...args: string[]) =>
      new Deno.Command("git", {
        args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
        cwd: h.worktree,
        stdout: "null",
        stderr: "null",
      }).output();
    await git("init", "-q");
    await git("add", "t.txt", "gone.txt");
    await git("commit", "-qm", "init");
    await Deno.writeTextFile(`${h.worktree}/t.txt`, "uncommitted\n");
    const session = await runTurns(h, 1);
    assert.deepEqual(await exists(h, "gone.txt"), false);
    const report = await undoTurns(h.worktree, session);
    assert(report.turns[0].complete, JSON.stringify(report));
    // The snapshot holds the uncommitted content, not only HEAD's.
    assert.deepEqual(await read(h, "t.txt"), "uncommitted\n");
    assert.deepEqual(await read(h, "gone.txt"), "bye\n");
    assert.match(report.turns[0].shellNote!, /git snapshot/);
    assert.deepEqual(await exists(h, "untracked.txt"), true);
    // The stash list is untouched.
    const stash = await new Deno.Command("git", { args: ["stash", "list"], cwd: h.worktree })
      .output();
    assert.deepEqual(new TextDecoder().decode(stash.stdout), "");
  },
);

Deno.test("svc undo --json restores the most recent session's last turn and refuses a changed file", async () => {
  await using h = await setup([...turn(write("a.txt", "v2")), ...turn(write("b.txt", "b2"))], {
    "a.txt": "v1",
    "b.txt": "b1",
  });
  await runTurns(h, 2);
  await Deno.writeTextFile(`${h.worktree}/b.txt`, "edited by hand");
  const svc = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "undo", ...args],
      cwd: h.worktree,
      stdin: "null",
      env: { HOME: h.worktree, XDG_CONFIG_HOME: `${h.worktree}/.config` },
    }).output();
  const refused = await svc("--json", "--session", "ses_undo");
  assert.equal(refused.code, 1);
  const report = JSON.parse(new TextDecoder().decode(refused.stdout));
  assert.equal(report.turns[0].files[0].action, "refused");
  assert.equal(await read(h, "b.txt"), "edited by hand");
  const forced = await svc("--turns", "2", "--force", "--yes");
  assert.equal(forced.code, 0, new TextDecoder().decode(forced.stderr));
  assert.equal(await read(h, "a.txt"), "v1");
  assert.equal(await read(h, "b.txt"), "b1");
});
