import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { minutesAgo, seedSession } from "../_support/sessions.ts";

const OLD = "ses_20260101_090000_old-work";
const NEW = "ses_20260102_090000_new-work";
const NEWER_NAME_OLDER = "ses_20260103_090000_stale";

/** Three sessions of a worktree: NEW was active last, though another's name sorts after it. */
async function seeded() {
  const box = await sandbox();
  await seedSession(box.worktree, { name: OLD, turns: 2, mtime: minutesAgo(30) });
  await seedSession(box.worktree, { name: NEW, turns: 1, mtime: minutesAgo(5) });
  await seedSession(box.worktree, { name: NEWER_NAME_OLDER, turns: 1, mtime: minutesAgo(60) });
  // A sub-agent's session written last is not what --continue continues.
  await seedSession(box.worktree, { name: "sub_20260104_000000_x", turns: 1 });
  return box;
}

function contents(body: { messages: { role: string; content: string }[] }): string[] {
  return body.messages.filter((m) => m.role !== "system").map((m) => m.content);
}

Deno.test("svc run --continue appends to the most recently active session and names it in the result and stream-json lines", async () => {
  await using box = await seeded();
  const fake = await startFakeProvider([{ text: "again" }]);
  const out = await svc(
    [
      "run",
      "--base-url",
      fake.url,
      "--model",
      "m",
      "--continue",
      "--output",
      "stream-json",
      "go on",
    ],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const lines = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(lines[0].type, "system");
  assert.equal(lines[0].session_id, NEW);
  assert.equal(lines.at(-1).type, "result");
  assert.equal(lines.at(-1).session_id, NEW);
  assert.deepEqual(contents(fake.requests.at(-1)!.body), [`${NEW} q1`, `${NEW} a1`, "go on"]);
  const stored = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/sessions/${NEW}.json`));
  assert.equal(stored.messages.length, 4);
});

Deno.test("svc run --resume takes a unique prefix and the TurnResult names the session", async () => {
  await using box = await seeded();
  const fake = await startFakeProvider([{ text: "back" }]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "-r", "ses_20260101", "--output", "json", "hi"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout).session, OLD);
  assert.equal(contents(fake.requests.at(-1)!.body).length, 5);
});

Deno.test("svc run --resume with an unknown or ambiguous ref, or with another session flag, is a usage error with suggestions", async () => {
  await using box = await seeded();
  const run = (...args: string[]) =>
    svc(["run", "--base-url", "http://127.0.0.1:9", "--model", "m", ...args, "hi"], {
      cwd: box.worktree,
      env: box.env,
    });
  const typo = await run("--resume", "ses_20260102_090000_new-wrok");
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /--resume: no session "ses_20260102_090000_new-wrok"; did you mean/);
  assert.match(typo.stderr, new RegExp(`did you mean ${NEW}`));
  const ambiguous = await run("--resume", "ses_2026010");
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /prefix "ses_2026010" matches 3 sessions/);
  assert.match(ambiguous.stderr, new RegExp(`${NEWER_NAME_OLDER}, ${NEW}, ${OLD}`));
  const both = await run("--continue", "--session-id", "x");
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--session-id and --continue cannot be combined/);
  const forkAt = await run("--fork-at", "2");
  assert.equal(forkAt.code, 2);
  assert.match(forkAt.stderr, /--fork-at needs --fork/);
  await using empty = await sandbox();
  const none = await svc(["run", "--model", "m", "--continue", "hi"], {
    cwd: empty.worktree,
    env: empty.env,
  });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--continue: no session to continue/);
});

Deno.test("svc run --fork copies the history up to the chosen turn into a new linked session and leaves the source alone", async () => {
  await using box = await seeded();
  const sourcePath = `${box.worktree}/.svc/sessions/${OLD}.json`;
  const before = await Deno.readTextFile(sourcePath);
  const fake = await startFakeProvider([{ text: "other way" }]);
  const args = ["run", "--base-url", fake.url, "--model", "m", "--output", "json"];
  const out = await svc([...args, "--fork", "ses_20260101", "--fork-at", "1", "try B"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.match(result.session, /^ses_\d{8}_\d{6}_ses-20260101-090000-old-work-q1$/);
  assert.deepEqual(contents(fake.requests.at(-1)!.body), [`${OLD} q1`, `${OLD} a1`, "try B"]);
  const fork = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  assert.deepEqual(fork.forked_from, { session: OLD, turn: 1 });
  assert.equal(fork.messages.length, 4);
  assert.equal(await Deno.readTextFile(sourcePath), before);
  const tooFar = await svc([...args, "--fork", OLD, "--fork-at", "3", "x"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(tooFar.code, 2);
  assert.match(tooFar.stderr, /has 2 turns; fork at a turn from 1 to 2/);
});
