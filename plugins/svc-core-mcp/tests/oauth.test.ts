/**
 * OAuth sign-in to a real OAuth-protected MCP server (oauth_server.ts, the official SDK's
 * authorization-server router) over loopback: `svc mcp login` with the browser replaced by a
 * $BROWSER script that follows the authorization redirect back to svc's loopback listener;
 * then `svc run` connecting with the stored token, refreshing it, declining a server's question
 * (headless), and never handing the token to a second server.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { startOAuthServer } from "./oauth_server.ts";
import { needs } from "../../../tests/_support/tools.ts";

/** Writes `~/.config/svc/config.json` and the $BROWSER script (curl following the redirect). */
async function setUp(home: string, config: Record<string, unknown>): Promise<string> {
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(config));
  const browser = `${home}/browser.sh`;
  await Deno.writeTextFile(browser, '#!/bin/sh\nexec curl -s -o /dev/null -L "$1"\n');
  await Deno.chmod(browser, 0o755);
  return browser;
}

/** Every file under `dir` except `skip`, as text. */
async function filesUnder(dir: string, skip: string): Promise<string> {
  let all = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (path === skip) continue;
    if (entry.isDirectory) all += await filesUnder(path, skip);
    else if (entry.isFile) all += await Deno.readTextFile(path);
  }
  return all;
}

Deno.test({
  name:
    "svc mcp login signs in with registration and PKCE; run refreshes, declines a question headless, keeps the token from another server",
  ...needs("curl"), // the $BROWSER script follows the redirect with curl
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const a = await startOAuthServer();
  const b = await startOAuthServer();
  await using box = await sandbox();
  const browser = await setUp(box.home, {
    "mcp.servers": [
      { name: "srv", transport: "http", url: a.url, autoconnect: true },
      { name: "other", transport: "http", url: b.url, autoconnect: true },
    ],
    tool_permission: { mcp: "allow" },
  });
  const fake = await startFakeProvider((_body, index) => {
    if (index === 1) a.expireAccessTokens(); // the next call meets a 401 and refreshes
    return [
      { tool_calls: [{ name: "srv__whoami", arguments: {} }] },
      { tool_calls: [{ name: "srv__whoami", arguments: {} }] },
      { tool_calls: [{ name: "srv__confirm", arguments: {} }] },
    ][index] ?? { text: "done" };
  });
  try {
    const env = { ...box.env, BROWSER: browser };
    const login = await svc(["mcp", "login", "srv", "--json"], { cwd: box.worktree, env });
    assert.equal(login.code, 0, login.stderr);
    const issuer = new URL("/", a.url).href;
    assert.deepEqual(JSON.parse(login.stdout), {
      signed_in: true,
      server: "srv",
      issuer,
      scope: "mcp:tools",
      expires_in: 3600,
      refreshable: true,
    });
    assert.match(login.stderr, /^Opened your browser to sign in to srv\./m);
    assert.deepEqual(a.counts, { registered: 1, code: 1, refresh: 0 });
    assert.deepEqual(a.resources, [a.url]); // the resource parameter names the MCP server

    const file = `${box.home}/.config/svc/mcp_oauth.json`;
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const first = JSON.parse(await Deno.readTextFile(file))[a.url].tokens;
    assert.equal(first.issuer, issuer);
    for (const secret of [first.access_token, first.refresh_token]) {
      assert.ok(!login.stdout.includes(secret) && !login.stderr.includes(secret));
    }

    const run = await svc(["run", "--base-url", fake.url, "--model", "m", "who am I?"], {
      cwd: box.worktree,
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "done\n");
    // The second server was never signed in to: it fails with the command, the run goes on.
    assert.match(
      run.stderr,
      /^warning: MCP autoconnect: could not connect other: MCP server other needs you to sign in: run svc mcp login other$/m,
    );
    assert.deepEqual(a.counts, { registered: 1, code: 1, refresh: 1 });
    assert.deepEqual(a.resources, [a.url, a.url]);
    const results = fake.requests.slice(1).map((r) => r.body.messages.at(-1).content);
    assert.match(results[0], /^client [0-9a-f-]+; scopes mcp:tools$/);
    assert.equal(results[1], results[0]); // the same client, after the refresh
    assert.equal(
      results[2],
      'answer: {"action":"decline"}\n[MCP server srv asked "Delete the branch?": declined by ' +
        "svc (no one to answer: this run is headless)]",
    );

    const now = JSON.parse(await Deno.readTextFile(file))[a.url].tokens;
    assert.notEqual(now.access_token, first.access_token);
    // Server b saw requests, never with a token; no token is in a session or another file.
    assert.ok(b.seen.length > 0);
    assert.deepEqual(b.counts, { registered: 0, code: 0, refresh: 0 }); // no client registered
    assert.deepEqual(b.seen.filter((header) => header !== ""), []);
    const everything = await filesUnder(box.worktree, "") + await filesUnder(box.home, file);
    for (const secret of [first.access_token, first.refresh_token, now.access_token]) {
      assert.ok(!everything.includes(secret) && !run.stderr.includes(secret), "a token leaked");
    }

    const logout = await svc(["mcp", "logout", "srv"], { cwd: box.worktree, env });
    assert.equal(logout.stdout, "Signed out of srv\n");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), {});
  } finally {
    await fake.close();
    await a.close();
    await b.close();
  }
});
