import assert from "node:assert/strict";
import { app, sessionFiles, TOKEN as APP_TOKEN } from "./_app.ts";
import {
  bearerChecker,
  isLoopback,
  loadOrCreateToken,
  loopbackHosts,
  readTokenFile,
} from "../../src/http/mod.ts";

const TOKEN = "s3cret-token-0123456789";
const UNAUTHORIZED = { error: "unauthorized: a valid bearer token is required" };

Deno.test("with a token, requests without a valid bearer token are 401 and run nothing", async () => {
  await using a = await app([{ text: "never" }], { token: TOKEN });
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: "Bearer wrong-token-0123456789" },
    { authorization: `Basic ${TOKEN}` },
    { authorization: `Bearer ${TOKEN}x` },
    { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    { authorization: "Bearer " },
  ];
  for (const headers of cases) {
    const res = await a.call("POST", "/chat", {
      json: { prompt: "hi", session_id: "x" },
      headers,
      auth: false,
    });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
    assert.deepEqual(await res.json(), UNAUTHORIZED);
  }
  for (const path of ["/sessions", "/mcp"]) {
    const res = await a.call(path === "/mcp" ? "POST" : "GET", path, { auth: false });
    assert.deepEqual([path, res.status, await res.json()], [path, 401, UNAUTHORIZED]);
  }
  assert.equal(a.fake.requests.length, 0);
  assert.deepEqual(await sessionFiles(a.worktree), []);
});

Deno.test("with a token, the right bearer token is served; /health and /version stay open", async () => {
  await using a = await app([{ text: "welcome" }], { token: TOKEN });
  const res = await a.call("POST", "/chat", {
    json: { prompt: "hi" },
    headers: { authorization: `bearer ${TOKEN}` },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).content, "welcome");
  const health = await a.call("GET", "/health", { auth: false });
  assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  const version = await a.call("GET", "/version", { auth: false });
  assert.equal(version.status, 200);
  await version.body?.cancel();
});

Deno.test("every app serves with a token unless built without one (--no-auth)", async () => {
  await using a = await app([]);
  const denied = await a.call("GET", "/sessions", { auth: false });
  assert.deepEqual([denied.status, await denied.json()], [401, UNAUTHORIZED]);
  const allowed = await a.call("GET", "/sessions", {
    headers: { authorization: `Bearer ${APP_TOKEN}` },
  });
  assert.deepEqual([allowed.status, await allowed.json()], [200, { sessions: [] }]);
  await using open = await app([], { token: null });
  const anyone = await open.call("GET", "/sessions", { auth: false });
  assert.deepEqual([anyone.status, await anyone.json()], [200, { sessions: [] }]);
});

Deno.test("the token file is created once, 0600, with a long random token, and then reused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/config/svc/serve_token`;
    const first = await loadOrCreateToken(path);
    assert.match(first.token, /^[0-9a-f]{64}$/);
    assert.equal(first.created, true);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${dir}/config/svc`)).mode! & 0o777, 0o700);
    assert.deepEqual(await loadOrCreateToken(path), { token: first.token, created: false });
    const racing = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateToken(`${dir}/race`)),
    );
    assert.equal(new Set(racing.map((r) => r.token)).size, 1);
    assert.equal(racing.filter((r) => r.created).length, 1);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["config", "race"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the token check is byte-exact", () => {
  const check = bearerChecker(TOKEN);
  assert.deepEqual(
    [`Bearer ${TOKEN}`, `Bearer  ${TOKEN} `, `Bearer ${TOKEN.toUpperCase()}`, null, TOKEN].map(
      check,
    ),
    [true, true, false, false, false],
  );
});

Deno.test("a token file must hold one long token; a readable one (a mounted secret) passes without a warning", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/good`, `${TOKEN}\n`, { mode: 0o600 });
    await Deno.chmod(`${dir}/good`, 0o600);
    assert.deepEqual(await readTokenFile(`${dir}/good`), { token: TOKEN });
    await Deno.writeTextFile(`${dir}/open`, TOKEN);
    await Deno.chmod(`${dir}/open`, 0o644);
    assert.deepEqual(await readTokenFile(`${dir}/open`), { token: TOKEN });
    // A Kubernetes secret: a root-owned sticky mount, the file 0444 behind ..data links.
    const mount = `${dir}/secret`;
    await Deno.mkdir(`${mount}/..2026_11_26`, { recursive: true });
    await Deno.chmod(mount, 0o1777);
    await Deno.writeTextFile(`${mount}/..2026_11_26/token`, TOKEN);
    await Deno.chmod(`${mount}/..2026_11_26/token`, 0o444);
    await Deno.symlink("..2026_11_26", `${mount}/..data`);
    await Deno.symlink("..data/token", `${mount}/token`);
    if (Deno.uid() === 0) {
      assert.deepEqual(await loadOrCreateToken(`${mount}/token`), { token: TOKEN, created: false });
    }
    for (const bad of ["short", "two words-0123456789", ""]) {
      await Deno.writeTextFile(`${dir}/bad`, bad);
      await assert.rejects(readTokenFile(`${dir}/bad`), {
        message:
          `The token file ${dir}/bad must hold one token of at least 16 characters without spaces`,
      });
    }
    await assert.rejects(readTokenFile(`${dir}/missing`), /Cannot read the token file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a token file others can write, or in a folder they can write, is refused and none is made there", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/writable`, TOKEN);
    await Deno.chmod(`${dir}/writable`, 0o666);
    await assert.rejects(readTokenFile(`${dir}/writable`), {
      name: "UnsafeFileError",
      message: new RegExp(`${dir}/writable can be written by group and others \\(mode 0666\\)`),
    });
    await Deno.mkdir(`${dir}/shared`);
    await Deno.chmod(`${dir}/shared`, 0o777);
    await Deno.writeTextFile(`${dir}/shared/token`, TOKEN, { mode: 0o600 });
    await Deno.chmod(`${dir}/shared/token`, 0o600);
    await assert.rejects(loadOrCreateToken(`${dir}/shared/token`), {
      name: "UnsafeFileError",
      message: new RegExp(`${dir}/shared can be written by group and others.*chmod go-w`),
    });
    // A link planted in such a folder, to a good token elsewhere, is refused all the same.
    await Deno.writeTextFile(`${dir}/real`, TOKEN, { mode: 0o600 });
    await Deno.chmod(`${dir}/real`, 0o600);
    await Deno.symlink(`${dir}/real`, `${dir}/shared/link`);
    await assert.rejects(readTokenFile(`${dir}/shared/link`), { name: "UnsafeFileError" });
    await assert.rejects(loadOrCreateToken(`${dir}/shared/new`), { name: "UnsafeFileError" });
    assert.deepEqual([...Deno.readDirSync(`${dir}/shared`)].map((e) => e.name).sort(), [
      "link",
      "token",
    ]);
    if (Deno.uid() === 0) {
      await Deno.chmod(`${dir}/shared`, 0o755);
      await Deno.chown(`${dir}/shared/token`, 65534, 65534);
      await assert.rejects(readTokenFile(`${dir}/shared/token`), /belongs to user id 65534/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loopback names and the accepted Host values", () => {
  assert.deepEqual(
    ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "0.0.0.0", "192.168.1.2", "::"].map(
      isLoopback,
    ),
    [true, true, true, true, true, false, false, false],
  );
  assert.deepEqual([...loopbackHosts(8787)], ["127.0.0.1:8787", "localhost:8787", "[::1]:8787"]);
  assert.deepEqual([...loopbackHosts(80)].length, 6);
});
