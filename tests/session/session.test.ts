import assert from "node:assert/strict";
import { SessionStore } from "../../src/session/store.ts";
import {
  checkSessionName,
  interactiveName,
  jobSessionName,
  slugify,
  subAgentName,
} from "../../src/session/naming.ts";

const at = new Date("2026-11-22T05:06:07Z");

Deno.test("session names follow the ses_, sub_ and job_ patterns", () => {
  assert.equal(interactiveName(at), "ses_20261122_050607");
  assert.equal(
    interactiveName(at, "Fix the FAILING test in src/app.ts, please!"),
    "ses_20261122_050607_fix-the-failing-test-in-src-app-ts-pleas",
  );
  assert.equal(subAgentName("ses_1/../x", at), "sub_20261122_050607_ses_1-x");
  assert.equal(jobSessionName("nightly build", at), "job_20261122_050607_nightly-build");
});

Deno.test("the slug is sanitized and capped at 40 characters", () => {
  assert.equal(slugify("../../etc/passwd"), "etc-passwd");
  assert.equal(slugify("a".repeat(100)).length, 40);
  assert.equal(slugify("  Ünïcödé  ok "), "unicode-ok");
  assert.equal(slugify("!!!"), "");
});

Deno.test("hostile session names are refused", () => {
  for (const name of ["../x", "a/b", ".hidden", "", "a\0b", "x".repeat(200), "a..b"]) {
    assert.notEqual(checkSessionName(name), null, name);
  }
  assert.equal(checkSessionName("demo-1.v2"), null);
});

Deno.test("a session file holds the SPEC fields and reloads equal", async () => {
  const dir = await Deno.makeTempDir();
  const store = new SessionStore(dir);
  const s = store.create("demo");
  await s.appendMessage({ role: "user", content: "hi", timestamp: "t1" });
  await s.appendError({ code: "x", message: "m" });
  await s.appendPermission({
    at: "t",
    call_id: "c",
    tool: "file_read",
    category: "read",
    action: "allow",
    outcome: "allowed",
    by: "policy",
    reason: "r",
  });
  const raw = JSON.parse(await Deno.readTextFile(`${dir}/.svc/sessions/demo.json`));
  assert.deepEqual(Object.keys(raw).sort(), [
    "created_at",
    "errors",
    "messages",
    "name",
    "permissions",
    "updated_at",
  ]);
  const again = await store.openOrCreate("demo");
  assert.deepEqual(again.data, raw);
  assert.deepEqual(await store.list(), ["demo"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("renaming on the first message moves the file and avoids collisions", async () => {
  const dir = await Deno.makeTempDir();
  const store = new SessionStore(dir);
  const a = store.create("ses_x");
  await a.appendMessage({ role: "user", content: "a", timestamp: "t" });
  await a.rename("ses_x_named");
  const b = store.create("ses_y");
  await b.appendMessage({ role: "user", content: "b", timestamp: "t" });
  await b.rename("ses_x_named");
  assert.deepEqual(await store.list(), ["ses_x_named", "ses_x_named_2"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("appends from two processes' handles are merged, not lost", async () => {
  const dir = await Deno.makeTempDir();
  const one = new SessionStore(dir).create("shared");
  await one.appendMessage({ role: "user", content: "1", timestamp: "t" });
  const two = await new SessionStore(dir).openOrCreate("shared");
  await two.appendMessage({ role: "user", content: "2", timestamp: "t" });
  await one.appendMessage({ role: "user", content: "3", timestamp: "t" });
  const raw = JSON.parse(await Deno.readTextFile(`${dir}/.svc/sessions/shared.json`));
  assert.deepEqual(raw.messages.map((m: { content: string }) => m.content), ["1", "2", "3"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a corrupt session file is reported and left untouched", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/.svc/sessions`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.svc/sessions/bad.json`, '{"name": "bad", "messages": [');
  await assert.rejects(() => new SessionStore(dir).openOrCreate("bad"), /not valid JSON/);
  assert.equal(
    await Deno.readTextFile(`${dir}/.svc/sessions/bad.json`),
    '{"name": "bad", "messages": [',
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("kill -9 during session writes never leaves a file that does not parse", async () => {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/writer.ts`;
  const store = new URL("../../src/session/store.ts", import.meta.url).href;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  await Deno.writeTextFile(
    script,
    `import { SessionStore } from "${store}";
const s = await new SessionStore(Deno.args[0]).openOrCreate("crash");
console.log("ready");
for (let i = 0; ; i++) await s.appendMessage({ role: "user", content: "x".repeat(i % 5000), timestamp: "t" });`,
  );
  for (let round = 0; round < 8; round++) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", config, script, dir],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 80 + round * 37));
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel();
    const text = await Deno.readTextFile(`${dir}/.svc/sessions/crash.json`).catch(() => null);
    if (text !== null) {
      const doc = JSON.parse(text);
      assert.ok(Array.isArray(doc.messages));
    }
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("two new sessions of the same name never overwrite each other", async () => {
  const dir = await Deno.makeTempDir();
  const store = new SessionStore(dir);
  const a = store.create("ses_same");
  const b = store.create("ses_same");
  await a.appendMessage({ role: "user", content: "a", timestamp: "t" });
  await b.appendMessage({ role: "user", content: "b", timestamp: "t" });
  assert.deepEqual([a.name, b.name], ["ses_same", "ses_same_2"]);
  const read = async (n: string) => (await store.read(n)).messages.map((m) => m.content);
  assert.deepEqual([await read("ses_same"), await read("ses_same_2")], [["a"], ["b"]]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a session opened by name joins a file another process created meanwhile", async () => {
  const dir = await Deno.makeTempDir();
  const first = await new SessionStore(dir).openOrCreate("demo");
  const second = await new SessionStore(dir).openOrCreate("demo");
  await first.appendMessage({ role: "user", content: "1", timestamp: "t" });
  await second.appendMessage({ role: "user", content: "2", timestamp: "t" });
  assert.equal(second.name, "demo");
  const stored = await new SessionStore(dir).read("demo");
  assert.deepEqual(stored.messages.map((m) => m.content), ["1", "2"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an append shows at once, and sync writes a deferred one without waiting", async () => {
  const dir = await Deno.makeTempDir();
  const session = new SessionStore(dir).create("deferred");
  const written = session.appendMessage({ role: "user", content: "q", timestamp: "t" }, {
    deferMs: 60_000,
  });
  assert.equal(session.data.messages.length, 1);
  assert.equal(await Deno.stat(session.path).catch(() => null), null);
  await session.sync();
  await written;
  const stored = JSON.parse(await Deno.readTextFile(session.path));
  assert.deepEqual(stored.messages.map((m: { content: string }) => m.content), ["q"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("appends made together share one write and keep their order", async () => {
  const dir = await Deno.makeTempDir();
  const session = new SessionStore(dir).create("batch");
  await Promise.all(
    ["a", "b", "c"].map((content) =>
      session.appendMessage({ role: "user", content, timestamp: "t" })
    ),
  );
  const stored = JSON.parse(await Deno.readTextFile(session.path));
  assert.deepEqual(stored.messages.map((m: { content: string }) => m.content), ["a", "b", "c"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("unwritten appends are replayed on top of another process's write", async () => {
  const dir = await Deno.makeTempDir();
  const mine = new SessionStore(dir).create("shared2");
  await mine.appendMessage({ role: "user", content: "1", timestamp: "t" });
  const theirs = await new SessionStore(dir).openOrCreate("shared2");
  const pending = mine.appendMessage({ role: "user", content: "3", timestamp: "t" }, {
    deferMs: 60_000,
  });
  await theirs.appendMessage({ role: "user", content: "2", timestamp: "t" });
  await mine.sync();
  await pending;
  const stored = await new SessionStore(dir).read("shared2");
  assert.deepEqual(stored.messages.map((m) => m.content), ["1", "2", "3"]);
  assert.deepEqual(mine.data.messages.map((m) => m.content), ["1", "2", "3"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a failed write rejects the append and is reported by sync", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/.svc`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.svc/sessions`, "not a folder");
  const session = new SessionStore(dir).create("broken");
  await assert.rejects(() => session.appendMessage({ role: "user", content: "x", timestamp: "t" }));
  await assert.rejects(() => session.sync());
  await session.sync();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a session's name comes from its file, so a hostile name field cannot move writes", async () => {
  const dir = await Deno.makeTempDir();
  const sessions = `${dir}/.svc/sessions`;
  await Deno.mkdir(sessions, { recursive: true });
  const doc = { name: "../../../escaped", created_at: "t", updated_at: "t", messages: [] };
  await Deno.writeTextFile(`${sessions}/foo.json`, JSON.stringify(doc));
  const session = await new SessionStore(dir).openOrCreate("foo");
  assert.equal(session.name, "foo");
  await session.appendMessage({ role: "user", content: "hi", timestamp: "t" });
  await session.sync();
  const raw = JSON.parse(await Deno.readTextFile(`${sessions}/foo.json`));
  assert.deepEqual([raw.name, raw.messages.length], ["foo", 1]);
  assert.deepEqual([...Deno.readDirSync(sessions)].map((e) => e.name).sort(), [
    ".sessions.lock",
    "foo.json",
  ]);
  assert.equal(await Deno.stat(`${dir}/../escaped.json`).catch(() => null), null);
  await Deno.remove(dir, { recursive: true });
});

const invalid: Array<[string, unknown, string]> = [
  ["a message with an unknown role", { role: "root", content: "x" }, "messages[1].role"],
  ["a message whose content is a number", { role: "user", content: 42 }, "messages[1].content"],
  [
    "a tool call without an id",
    { role: "assistant", content: null, tool_calls: [{ function: { name: "a", arguments: "" } }] },
    "messages[1].tool_calls[0].id",
  ],
  ["a message that is not an object", "hello", "messages[1]"],
];
for (const [what, message, where] of invalid) {
  Deno.test(`a session file holding ${what} is refused, naming ${where}, and left untouched`, async () => {
    const dir = await Deno.makeTempDir();
    await Deno.mkdir(`${dir}/.svc/sessions`, { recursive: true });
    const text = JSON.stringify({
      name: "bad",
      messages: [{ role: "user", content: "ok", timestamp: "t" }, message],
    });
    await Deno.writeTextFile(`${dir}/.svc/sessions/bad.json`, text);
    await assert.rejects(
      () => new SessionStore(dir).openOrCreate("bad"),
      (err: Error) => {
        assert.equal(err.name, "SessionError");
        assert.ok(err.message.includes(`not a valid session (${where}:`), err.message);
        assert.ok(err.message.endsWith("it was left untouched"), err.message);
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(`${dir}/.svc/sessions/bad.json`), text);
    await Deno.remove(dir, { recursive: true });
  });
}

Deno.test("a session file that is a FIFO is refused at once, not waited on", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/.svc/sessions`, { recursive: true });
  await new Deno.Command("mkfifo", { args: [`${dir}/.svc/sessions/pipe.json`] }).output();
  await assert.rejects(
    () => new SessionStore(dir).openOrCreate("pipe"),
    /Session file .*pipe\.json is not a regular file; it was left untouched/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a confined store refuses a sessions folder that a symlink leads out of the worktree", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir());
  const elsewhere = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${worktree}/.svc`);
  await Deno.symlink(elsewhere, `${worktree}/.svc/sessions`);
  assert.throws(
    () => new SessionStore(worktree, { confine: true }),
    (err: Error) => {
      assert.equal(err.name, "SessionError");
      assert.equal(
        err.message,
        `${worktree}/.svc/sessions leads outside the worktree (to ${elsewhere}); svc writes ` +
          "sessions there only in a trusted worktree (svc trust)",
      );
      return true;
    },
  );
  // Trusted (not confined), the link is the user's own choice and is followed.
  const store = new SessionStore(worktree);
  const session = store.create("kept");
  await session.appendMessage({ role: "user", content: "hi", timestamp: "t" });
  assert.deepEqual([...Deno.readDirSync(elsewhere)].map((e) => e.name).sort(), [
    ".sessions.lock",
    "kept.json",
  ]);
  // A .svc that is itself a link out is refused the same way; one inside is fine.
  await Deno.remove(`${worktree}/.svc`, { recursive: true });
  await Deno.symlink(elsewhere, `${worktree}/.svc`);
  assert.throws(() => new SessionStore(worktree, { confine: true }), /leads outside/);
  await Deno.remove(`${worktree}/.svc`);
  await Deno.mkdir(`${worktree}/real`);
  await Deno.symlink(`${worktree}/real`, `${worktree}/.svc`);
  new SessionStore(worktree, { confine: true });
  await Deno.remove(worktree, { recursive: true });
  await Deno.remove(elsewhere, { recursive: true });
});
