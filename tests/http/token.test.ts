import assert from "node:assert/strict";
import { app, sessionFiles } from "./_app.ts";
import { bearerChecker, isLoopback, loopbackHosts, readTokenFile } from "../../src/http/mod.ts";

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
    const res = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: "x" }, headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
    assert.deepEqual(await res.json(), UNAUTHORIZED);
  }
  const sessions = await a.call("GET", "/sessions");
  assert.equal(sessions.status, 401);
  await sessions.body?.cancel();
  assert.equal(a.fake.requests.length, 0);
  assert.deepEqual(await sessionFiles(a.worktree), []);
});

Deno.test("with a token, the right bearer token is served and /health stays open", async () => {
  await using a = await app([{ text: "welcome" }], { token: TOKEN });
  const res = await a.call("POST", "/chat", {
    json: { prompt: "hi" },
    headers: { authorization: `bearer ${TOKEN}` },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).content, "welcome");
  const health = await a.call("GET", "/health");
  assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
  const version = await a.call("GET", "/version");
  assert.deepEqual([version.status, await version.json()], [401, UNAUTHORIZED]);
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

Deno.test("a token file must hold one long token; a group-readable file is warned about", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/good`, `${TOKEN}\n`, { mode: 0o600 });
    await Deno.chmod(`${dir}/good`, 0o600);
    assert.deepEqual(await readTokenFile(`${dir}/good`), { token: TOKEN, warning: undefined });
    await Deno.writeTextFile(`${dir}/open`, TOKEN);
    await Deno.chmod(`${dir}/open`, 0o644);
    assert.deepEqual(await readTokenFile(`${dir}/open`), {
      token: TOKEN,
      warning: `the token file ${dir}/open is readable by other users; chmod 600 it`,
    });
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
