/**
 * `latestSession` (`--continue`) answers from `.svc/sessions.latest` while the record vouches for
 * the sessions folder, and scans the folder whenever it does not (src/session/latest.ts).
 */
import assert from "node:assert/strict";
import { latestRecordPath } from "../../src/session/latest.ts";
import { latestSession } from "../../src/session/resolve.ts";
import { SessionStore } from "../../src/session/store.ts";

async function write(store: SessionStore, name: string): Promise<void> {
  const session = store.create(name);
  await session.appendMessage({ role: "user", content: "hi", timestamp: new Date().toISOString() });
  await session.sync();
}

Deno.test("--continue's newest session comes from the record svc writes with each append; job and sub-agent writes keep it valid", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-latest-" }));
  const store = new SessionStore(worktree);
  try {
    await write(store, "first");
    await write(store, "second");
    const record = latestRecordPath(store.dir);
    assert.equal(JSON.parse(await Deno.readTextFile(record)).name, "second");
    assert.equal(await latestSession({ worktree }), "second");
    await write(store, "job_run");
    await write(store, "sub_agent");
    assert.equal(JSON.parse(await Deno.readTextFile(record)).name, "second");
    // The record answers without a scan: a time set by hand on another file (no folder change)
    // is not seen, which is how the test knows no file was stat'ed.
    const later = new Date(Date.now() + 60_000);
    await Deno.utime(`${store.dir}/first.json`, later, later);
    assert.equal(await latestSession({ worktree }), "second");
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});

Deno.test("a record the sessions folder no longer matches is ignored: the folder is scanned", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-latest-" }));
  const store = new SessionStore(worktree);
  const record = latestRecordPath(store.dir);
  try {
    await write(store, "old");
    await write(store, "recorded");
    // A session file written by hand (not through svc) changes the folder; in a later clock tick
    // of the file system (a change in the same tick leaves its time as it was).
    await new Promise((resolve) => setTimeout(resolve, 25));
    const late = new Date(Date.now() + 60_000);
    await Deno.writeTextFile(`${store.dir}/by-hand.json`, '{"name":"by-hand","messages":[]}');
    await Deno.utime(`${store.dir}/by-hand.json`, late, late);
    assert.equal(await latestSession({ worktree }), "by-hand");
    // The recorded session removed: the scan answers.
    await write(store, "again");
    await Deno.remove(`${store.dir}/by-hand.json`);
    await Deno.remove(`${store.dir}/again.json`);
    assert.equal(await latestSession({ worktree }), "recorded");
    // A record naming what --continue skips, a path or garbage is never believed.
    const stamp = (await Deno.stat(store.dir)).mtime!.getTime();
    for (const name of ["job_x", "../../etc/passwd", ".hidden"]) {
      await Deno.writeTextFile(record, JSON.stringify({ name, stamp }));
      assert.equal(await latestSession({ worktree }), "recorded");
    }
    await Deno.writeTextFile(record, "{not json");
    assert.equal(await latestSession({ worktree }), "recorded");
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});

Deno.test("a scan of a settled folder is recorded for the next --continue", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-latest-" }));
  const store = new SessionStore(worktree);
  try {
    await write(store, "only");
    await Deno.remove(latestRecordPath(store.dir));
    // Settled: the folder's time a minute ago.
    const past = new Date(Date.now() - 60_000);
    await Deno.utime(store.dir, past, past);
    assert.equal(await latestSession({ worktree }), "only");
    const written = JSON.parse(await Deno.readTextFile(latestRecordPath(store.dir)));
    assert.deepEqual(written, { name: "only", stamp: past.getTime() });
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});
