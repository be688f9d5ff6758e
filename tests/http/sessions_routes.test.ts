import assert from "node:assert/strict";
import { app, assertJsonHeaders } from "./_app.ts";
import { SessionStore } from "../../src/session/store.ts";
import { checkpointDir } from "../../src/session/checkpoint.ts";

/** A saved session `name` whose messages alternate user and assistant, written as svc writes. */
async function saved(worktree: string, name: string, words: string[]): Promise<void> {
  const session = new SessionStore(worktree).create(name);
  for (const [i, word] of words.entries()) {
    const role = i % 2 ? "assistant" : "user";
    await session.appendMessage({ role, content: word, timestamp: new Date().toISOString() });
  }
}

Deno.test("GET /sessions/{id} answers the session with its messages paged", async () => {
  await using a = await app([]);
  await saved(a.worktree, "demo", ["m0", "m1", "m2", "m3", "m4"]);
  const res = await a.call("GET", "/sessions/demo?offset=1&limit=2");
  assert.equal(res.status, 200);
  assertJsonHeaders(res);
  const page = await res.json();
  assert.deepEqual(
    [page.name, page.total_messages, page.offset, page.limit],
    ["demo", 5, 1, 2],
  );
  assert.deepEqual(page.messages.map((m: { content: string }) => m.content), ["m1", "m2"]);
  assert.equal(typeof page.context.estimated_tokens, "number");
  const all = await (await a.call("GET", "/sessions/demo")).json();
  assert.equal(all.messages.length, 5);
  const head = await a.call("HEAD", "/sessions/demo");
  assert.deepEqual([head.status, await head.text()], [200, ""]);
  for (const query of ["offset=-1", "limit=0", "limit=1001", "offset=x", "limit=1.5"]) {
    const bad = await a.call("GET", `/sessions/demo?${query}`);
    assert.equal(bad.status, 400, query);
    assert.match((await bad.json()).error, /offset and limit/);
  }
});

Deno.test("DELETE /sessions/{id} removes the session and its checkpoints", async () => {
  await using a = await app([]);
  await saved(a.worktree, "gone", ["hello"]);
  await saved(a.worktree, "gone2", ["kept"]);
  await Deno.mkdir(checkpointDir(a.worktree, "gone"), { recursive: true });
  const res = await a.call("DELETE", "/sessions/gone");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { deleted: "gone", checkpoints_removed: true });
  assert.equal(await new SessionStore(a.worktree).exists("gone"), false);
  assert.equal(await new SessionStore(a.worktree).exists("gone2"), true);
  await assert.rejects(Deno.stat(checkpointDir(a.worktree, "gone")), Deno.errors.NotFound);
  const again = await a.call("DELETE", "/sessions/gone");
  assert.deepEqual([again.status, await again.json()], [404, { error: 'no session "gone"' }]);
  const prefix = await a.call("DELETE", "/sessions/gone2".slice(0, -2));
  assert.equal(prefix.status, 404, "a prefix never names what is deleted");
  await prefix.body?.cancel();
  assert.equal(await new SessionStore(a.worktree).exists("gone2"), true);
});

Deno.test("DELETE /sessions/{id} is 409 while a turn of that session runs or waits, and deletes nothing", async () => {
  await using a = await app([{ stall: true, text: "partial" }]);
  await saved(a.worktree, "busy", ["hello"]);
  await saved(a.worktree, "waiting", ["hello"]);
  const running = a.call("POST", "/chat", { json: { prompt: "wait", session_id: "busy" } });
  while (!a.fake.requests.length) await new Promise((r) => setTimeout(r, 5));
  const queued = a.call("POST", "/chat", { json: { prompt: "later", session_id: "waiting" } });
  while (a.lock.waiting < 1) await new Promise((r) => setTimeout(r, 5));
  const busy = await a.call("DELETE", "/sessions/busy");
  assert.deepEqual([busy.status, await busy.json()], [409, {
    error: "session busy has a running turn; end it first (POST /sessions/busy/abort, which " +
      "ends the running turn or else takes the queued ones out of the queue) and delete it then",
  }]);
  const waiting = await a.call("DELETE", "/sessions/waiting");
  assert.equal(waiting.status, 409);
  assert.match((await waiting.json()).error, /^session waiting has 1 queued turn; end it first/);
  assert.deepEqual(await (await a.call("GET", "/sessions")).json(), {
    sessions: ["busy", "waiting"],
  });
  assert.equal((await a.call("POST", "/sessions/waiting/abort")).status, 200);
  assert.equal((await queued).status, 409);
  assert.equal((await a.call("POST", "/sessions/busy/abort")).status, 200);
  assert.equal((await (await running).json()).status, "cancelled");
  for (const name of ["busy", "waiting"]) {
    const deleted = await a.call("DELETE", `/sessions/${name}`);
    assert.deepEqual([deleted.status, (await deleted.json()).deleted], [200, name]);
  }
});

Deno.test("session routes refuse a missing token and ids that are not session names", async () => {
  await using a = await app([]);
  await using other = await app([]);
  await saved(a.worktree, "mine", ["x"]);
  await saved(other.worktree, "theirs", ["secret"]);
  for (const [method, path] of [["GET", "/sessions/mine"], ["DELETE", "/sessions/mine"]]) {
    const res = await a.call(method, path, { auth: false });
    assert.equal(res.status, 401, `${method} ${path}`);
    await res.body?.cancel();
  }
  const rel = `..%2F..%2F..%2F${encodeURIComponent(other.worktree.split("/").pop()!)}` +
    "%2F.svc%2Fsessions%2Ftheirs";
  const ids = [
    "..%2F..%2Fetc%2Fpasswd",
    "..%2F..%2Fetc",
    rel,
    encodeURIComponent(`${other.worktree}/.svc/sessions/theirs`),
    ".hidden",
    "a%00b",
    "%E0%A4%A",
    "x".repeat(129),
  ];
  for (const id of ids) {
    for (const method of ["GET", "DELETE"]) {
      const res = await a.call(method, `/sessions/${id}`);
      assert.equal(res.status, 400, `${method} ${id}`);
      assertJsonHeaders(res);
      assert.match((await res.json()).error, /invalid session id/);
    }
  }
  // A link in the sessions folder to another worktree's session: DELETE removes the link only.
  await Deno.symlink(
    `${other.worktree}/.svc/sessions/theirs.json`,
    `${a.worktree}/.svc/sessions/link.json`,
  );
  const unlinked = await a.call("DELETE", "/sessions/link");
  assert.equal(unlinked.status, 200);
  await unlinked.body?.cancel();
  await assert.rejects(Deno.lstat(`${a.worktree}/.svc/sessions/link.json`), Deno.errors.NotFound);
  assert.equal(await new SessionStore(other.worktree).exists("theirs"), true);
  assert.equal(await new SessionStore(a.worktree).exists("mine"), true);
  const dots = await a.call("DELETE", "/sessions/%2E%2E"); // the URL resolves it to /
  assert.equal(dots.status, 404);
  await dots.body?.cancel();
  const nested = await a.call("GET", "/sessions/mine/extra");
  assert.equal(nested.status, 404);
  await nested.body?.cancel();
  const put = await a.call("PUT", "/sessions/mine");
  assert.deepEqual([put.status, put.headers.get("allow")], [405, "GET, HEAD, DELETE"]);
  await put.body?.cancel();
});

Deno.test("GET /sessions?q= searches, and without q still lists the names", async () => {
  await using a = await app([]);
  await saved(a.worktree, "alpha", ["tell me about zebras", "Zebras are striped"]);
  await saved(a.worktree, "beta", ["nothing here"]);
  const res = await a.call("GET", "/sessions?q=zebra");
  assert.equal(res.status, 200);
  const report = await res.json();
  assert.deepEqual(report.results.map((r: { name: string }) => r.name), ["alpha"]);
  assert.equal(report.results[0].matches, 2);
  assert.equal("path" in report.results[0], false, "no server paths");
  assert.deepEqual(await (await a.call("GET", "/sessions")).json(), {
    sessions: ["alpha", "beta"],
  });
  for (const query of ["q=", "q=%20", "q=x&limit=0", "q=x&limit=201"]) {
    const bad = await a.call("GET", `/sessions?${query}`);
    assert.equal(bad.status, 400, query);
    await bad.body?.cancel();
  }
  const anonymous = await a.call("GET", "/sessions?q=zebra", { auth: false });
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});
