/**
 * Undo treats checkpoints as untrusted: a planted one naming paths outside the worktree, inside
 * `.git` or `.svc`, or reaching out through symbolic links writes nothing outside the worktree.
 */
import assert from "node:assert/strict";
import { SessionStore } from "../../src/session/store.ts";
import { checkpointDir, checkpointId } from "../../src/session/checkpoint.ts";
import { undoTurns } from "../../src/session/undo.ts";

const B64 = btoa("planted");

async function plant(paths: string[]) {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-hostile-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-outside-" }));
  await Deno.writeTextFile(`${outside}/victim.txt`, "safe");
  await Deno.symlink(outside, `${worktree}/out`);
  await Deno.symlink(`${outside}/victim.txt`, `${worktree}/link.txt`);
  await Deno.mkdir(`${worktree}/.git/hooks`, { recursive: true });
  const store = new SessionStore(worktree);
  const session = store.create("ses_hostile");
  await session.appendMessage({ role: "user", content: "x", timestamp: new Date().toISOString() });
  await session.sync();
  const dir = checkpointDir(worktree, session.name);
  await Deno.mkdir(dir, { recursive: true });
  const files = paths.map((path) => ({
    path,
    by: "file_write",
    before: { kind: "file", base64: B64, mode: 0o755 },
    after: { absent: true },
  }));
  const removals = paths.map((path) => ({
    path,
    by: "file_write",
    before: { kind: "absent" },
    after: { absent: true },
  }));
  for (const list of [files, removals]) {
    const id = checkpointId();
    const checkpoint = { version: 1, id, session: session.name, at: "", prompt: "", files: list };
    await Deno.writeTextFile(`${dir}/${id}.json`, JSON.stringify({ ...checkpoint, shell: [] }));
    await new Promise((r) => setTimeout(r, 2));
  }
  return { worktree, outside, session };
}

const HOSTILE = [
  "../escape.txt",
  "/tmp/absolute.txt",
  "out/victim.txt",
  "out/new.txt",
  "link.txt",
  ".git/hooks/post-checkout",
  ".svc/sessions/ses_hostile.json",
  "a/../../escape2.txt",
  "./dot.txt",
];

Deno.test("a planted checkpoint cannot make undo write or remove anything outside the worktree", async () => {
  const { worktree, outside, session } = await plant(HOSTILE);
  try {
    for (const force of [false, true]) {
      const report = await undoTurns(worktree, session, { force, turns: 2 });
      for (const turn of report.turns) {
        for (const file of turn.files) {
          assert.ok(file.action === "refused" || file.action === "unchanged", JSON.stringify(file));
        }
      }
    }
    assert.equal(await Deno.readTextFile(`${outside}/victim.txt`), "safe");
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["victim.txt"]);
    assert.equal(Deno.lstatSync(`${worktree}/link.txt`).isSymlink, true);
    assert.deepEqual([...Deno.readDirSync(`${worktree}/.git/hooks`)], []);
    await assert.rejects(Deno.lstat(`${worktree}/../escape.txt`));
    assert.equal(JSON.parse(Deno.readTextFileSync(session.path!)).name, "ses_hostile");
  } finally {
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a checkpoint folder planted as a link outside .svc is not written to", async () => {
  const { TurnCheckpoint } = await import("../../src/session/checkpoint_record.ts");
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-hostile-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-outside-" }));
  try {
    await Deno.mkdir(`${worktree}/.svc`);
    await Deno.symlink(outside, `${worktree}/.svc/checkpoints`);
    const recorder = new TurnCheckpoint(worktree, "p");
    await Deno.writeTextFile(`${worktree}/a.txt`, "a");
    await recorder.beforeWrite(`${worktree}/a.txt`, "file_write");
    await assert.rejects(recorder.save("ses_x"), /leads outside/);
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  } finally {
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a write through a link to a file outside the worktree is recorded as not undoable", async () => {
  const { TurnCheckpoint } = await import("../../src/session/checkpoint_record.ts");
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-hostile-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-outside-" }));
  try {
    await Deno.writeTextFile(`${outside}/v.txt`, "v");
    const recorder = new TurnCheckpoint(worktree, "p");
    await recorder.beforeWrite(`${outside}/v.txt`, "file_write");
    await Deno.writeTextFile(`${outside}/v.txt`, "changed");
    await recorder.save("ses_y");
    const session = new SessionStore(worktree).create("ses_y");
    const report = await undoTurns(worktree, session, { force: true });
    assert.equal(report.turns[0].files[0].action, "not_undoable");
    assert.equal(report.turns[0].complete, true);
    assert.equal(await Deno.readTextFile(`${outside}/v.txt`), "changed");
  } finally {
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a planted checkpoint whose content is not base64 is refused and the file left alone", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-undo-hostile-" }));
  try {
    await Deno.writeTextFile(`${worktree}/a.txt`, "now");
    const session = new SessionStore(worktree).create("ses_b64");
    const dir = checkpointDir(worktree, session.name);
    await Deno.mkdir(dir, { recursive: true });
    const id = checkpointId();
    const before = { kind: "file", base64: "not*base64!", mode: 0o644 };
    const files = [{ path: "a.txt", by: "file_write", before, after: { absent: true } }];
    const checkpoint = { version: 1, id, session: session.name, at: "", prompt: "", files };
    await Deno.writeTextFile(`${dir}/${id}.json`, JSON.stringify({ ...checkpoint, shell: [] }));
    const report = await undoTurns(worktree, session, { force: true });
    assert.deepEqual(report.turns[0].files, [
      { path: "a.txt", action: "refused", why: "its recorded content is not base64; left alone" },
    ]);
    assert.equal(await Deno.readTextFile(`${worktree}/a.txt`), "now");
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});
