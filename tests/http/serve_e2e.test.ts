import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { rawRequest, startServe, writeConfig } from "./_serve.ts";
import { VERSION } from "../../src/version.ts";

const json = { "content-type": "application/json" };

Deno.test("svc serve over a socket: routes, serialized concurrent chats and a forged Host", async (t) => {
  await using box = await sandbox();
  const fake = await startFakeProvider((body) => {
    const prompt = body.messages.at(-1).content as string;
    return { text: `answer to ${prompt} `.repeat(4), chunkSize: 8, delayMs: 15 };
  });
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    await t.step("health, version and 404", async () => {
      const health = await fetch(`${served.url}/health`);
      assert.equal(health.headers.get("content-type"), "application/json");
      assert.deepEqual(await health.json(), { status: "ok" });
      assert.deepEqual(await (await fetch(`${served.url}/version`)).json(), { version: VERSION });
      const missing = await served.fetch(`${served.url}/missing`);
      assert.deepEqual([missing.status, await missing.json()], [404, { error: "not found" }]);
    });
    await t.step(
      "POST /chat returns a TurnResult and GET /sessions lists the session",
      async () => {
        const res = await served.fetch(`${served.url}/chat`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ prompt: "demo", session_id: "demo" }),
        });
        assert.equal(res.status, 200);
        const result = await res.json();
        assert.deepEqual([result.status, result.session, result.model], ["ok", "demo", "m"]);
        assert.deepEqual(await (await served.fetch(`${served.url}/sessions`)).json(), {
          sessions: ["demo"],
        });
      },
    );
    await t.step("three concurrent chats run one after the other", async () => {
      const before = fake.requests.length;
      const starts: number[] = [];
      const watch = setInterval(() => {
        while (starts.length < fake.requests.length - before) starts.push(performance.now());
      }, 1);
      const bodies = await Promise.all(["a", "b", "c"].map(async (id) => {
        const res = await served.fetch(`${served.url}/chat`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ prompt: id, session_id: `c_${id}` }),
        });
        return await res.json();
      }));
      clearInterval(watch);
      assert.deepEqual(
        bodies.map((b) => [b.session, b.content.trim().split(" ").slice(0, 3).join(" ")]),
        [["c_a", "answer to a"], ["c_b", "answer to b"], ["c_c", "answer to c"]],
      );
      assert.equal(starts.length, 3);
      for (let i = 1; i < 3; i++) {
        assert.ok(starts[i] - starts[i - 1] >= 60, `turn ${i} overlapped the previous one`);
      }
    });
    await t.step("a forged Host header is refused with 403 before routing", async () => {
      const reply = await rawRequest(
        served.port,
        `GET /sessions HTTP/1.1\r\nHost: evil.example:${served.port}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(reply, /^HTTP\/1\.1 403 /);
      assert.match(reply, /\{"error":"forbidden: Host is not a loopback name for this port"\}$/);
    });
    await t.step("GET /mcp explains that only POST is served", async () => {
      const res = await served.fetch(`${served.url}/mcp`, {
        headers: { accept: "text/event-stream" },
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("content-type"), "application/json");
      const body = await res.json();
      assert.equal(body.error.code, -32000);
      assert.match(body.error.message, /2024-11-05 HTTP\+SSE transport are not implemented/);
    });
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
    await fake.close();
  }
});

Deno.test("SIGTERM during a stalled turn cancels it, keeps the session and exits promptly", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ stall: true, text: "half an answ" }]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    const pending = served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "take your time", session_id: "slow" }),
    });
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    const signalled = performance.now();
    served.child.kill("SIGTERM");
    const res = await pending;
    assert.equal(res.status, 503);
    assert.equal((await res.json()).status, "cancelled");
    assert.equal(await served.exited, 0, served.stderr());
    assert.ok(performance.now() - signalled < 3000, "exit took too long");
    const stored = JSON.parse(
      await Deno.readTextFile(`${box.worktree}/.svc/sessions/slow.json`),
    );
    assert.deepEqual(
      stored.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [["user", "take your time"], ["assistant", "half an answ"]],
    );
  } finally {
    await served.stop();
    await fake.close();
  }
});

Deno.test("a client that hangs up mid-turn cancels it over a real socket; the server keeps serving", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ stall: true, text: "half an answ" }, { text: "next" }]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    const client = new AbortController();
    const pending = served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "take your time", session_id: "hangup" }),
      signal: client.signal,
    }).catch((err) => err);
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    client.abort();
    assert.equal((await pending).name, "AbortError");
    const path = `${box.worktree}/.svc/sessions/hangup.json`;
    const read = async () => JSON.parse(await Deno.readTextFile(path).catch(() => "{}"));
    for (let i = 0; i < 100 && (await read()).messages?.length !== 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const stored = await read();
    assert.deepEqual(
      stored.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
      [["user", "take your time"], ["assistant", "half an answ"]],
    );
    assert.equal(stored.messages[1].partial, true);
    const next = await served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "again", session_id: "after" }),
    });
    assert.deepEqual([next.status, (await next.json()).content], [200, "next"]);
  } finally {
    await served.stop();
    await fake.close();
  }
});

Deno.test("svc serve honours SVC_PORT and SVC_PATH and requires the token from --token-file", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "authorized" }]);
  await writeConfig(box.worktree, fake.url);
  const tokenFile = `${box.home}/token`;
  await Deno.writeTextFile(tokenFile, "0123456789abcdef0123\n", { mode: 0o600 });
  const served = await startServe(["--token-file", tokenFile], {
    cwd: box.home,
    env: { ...box.env, SVC_PORT: "0", SVC_PATH: box.worktree },
  });
  try {
    assert.match(served.stderr(), new RegExp(`worktree ${box.worktree}; token in ${tokenFile}\\)`));
    const denied = await fetch(`${served.url}/sessions`);
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const res = await fetch(`${served.url}/chat`, {
      method: "POST",
      headers: { ...json, authorization: "Bearer 0123456789abcdef0123" },
      body: JSON.stringify({ prompt: "hi", session_id: "tok" }),
    });
    assert.equal((await res.json()).content, "authorized");
    assert.ok(await Deno.stat(`${box.worktree}/.svc/sessions/tok.json`));
    assert.equal(served.stderr().includes("0123456789abcdef0123"), false);
  } finally {
    assert.equal(await served.stop(), 0);
    await fake.close();
  }
});

Deno.test("svc serve creates a 0600 token file on first start, requires it and reuses it", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "authorized" }]);
  await writeConfig(box.worktree, fake.url);
  const tokenFile = `${box.home}/.config/svc/serve_token`;
  const first = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    assert.match(first.stderr(), new RegExp(`; new token in ${tokenFile}\\)\n`));
    assert.match(first.token ?? "", /^[0-9a-f]{64}$/);
    assert.equal((await Deno.stat(tokenFile)).mode! & 0o777, 0o600);
    assert.equal(first.stderr().includes(first.token!), false);
    for (const path of ["/sessions", "/chat", "/mcp", "/missing"]) {
      const denied = await fetch(`${first.url}${path}`, {
        method: path === "/sessions" ? "GET" : "POST",
        headers: json,
        body: path === "/sessions" ? undefined : "{}",
      });
      assert.deepEqual([path, denied.status, await denied.json()], [path, 401, {
        error: "unauthorized: a valid bearer token is required",
      }]);
    }
    for (const path of ["/health", "/version"]) {
      const open = await fetch(`${first.url}${path}`);
      assert.equal(open.status, 200, path);
      await open.body?.cancel();
    }
    const res = await first.fetch(`${first.url}/chat`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ prompt: "hi", session_id: "tok" }),
    });
    assert.equal((await res.json()).content, "authorized");
  } finally {
    assert.equal(await first.stop(), 0);
    await fake.close();
  }
  const second = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    assert.match(second.stderr(), new RegExp(`; token in ${tokenFile}\\)\n`));
    assert.equal(second.token, first.token);
  } finally {
    await second.stop();
  }
});

Deno.test("svc serve --no-auth serves without a token on loopback only, with a warning", async () => {
  await using box = await sandbox();
  await writeConfig(box.worktree, "http://127.0.0.1:9");
  const served = await startServe(["--no-auth"], { cwd: box.worktree, env: box.env });
  try {
    assert.equal(served.token, null);
    const res = await fetch(`${served.url}/sessions`);
    assert.deepEqual([res.status, await res.json()], [200, { sessions: [] }]);
    assert.match(
      served.stderr(),
      /^svc serve: warning: --no-auth: every local user and process can call this server and read its sessions; ask-gated MCP tool calls are refused\n/,
    );
    assert.match(served.stderr(), /; no authentication\)\n/);
    await assert.rejects(Deno.stat(`${box.home}/.config/svc/serve_token`), Deno.errors.NotFound);
  } finally {
    assert.equal(await served.stop(), 0);
  }
  const outside = await svc(["serve", "--host", "0.0.0.0", "--port", "0", "--no-auth"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.deepEqual([outside.code, outside.stdout, outside.stderr], [
    2,
    "",
    "svc serve: binding to 0.0.0.0 (not loopback) requires a token; drop --no-auth\n",
  ]);
  const both = await svc(["serve", "--no-auth", "--token-file", "x", "--port", "0"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.deepEqual([both.code, both.stderr], [
    2,
    "svc serve: --no-auth and --token-file contradict each other\n",
  ]);
});

Deno.test("svc serve rejects a bad port", async () => {
  await using box = await sandbox();
  const out = await svc(["serve", "--port", "99999"], { cwd: box.worktree, env: box.env });
  assert.deepEqual([out.code, out.stderr], [
    2,
    "svc serve: --port (or SVC_PORT) must be an integer from 0 to 65535\n",
  ]);
});
