/**
 * The parts of sign-in and of answering servers' questions, in-process: the browser command,
 * the redirect's state check against a real authorization server (oauth_server.ts), tokens bound
 * to their server's URL and issuer, and the form questions of elicitation.
 */
import assert from "node:assert/strict";
import { browserCommand } from "../../../src/tool/browser_open.ts";
import { signIn } from "../../../src/tool/mcp_sign_in.ts";
import { SignInNeeded, SvcOAuthProvider } from "../../../src/tool/mcp_oauth_provider.ts";
import { changeGrant } from "../../../src/tool/mcp_oauth_store.ts";
import type { AskRequest } from "../../../src/plugin/api.ts";
import { elicit, type ElicitParams } from "../src/client/elicitation.ts";
import { needs } from "../../../tests/_support/tools.ts";
import { startOAuthServer } from "./oauth_server.ts";

Deno.test("browserCommand: $BROWSER first (with %s or the address appended), none without a desktop", () => {
  const url = "https://as.example/authorize?x=1";
  assert.deepEqual(browserCommand(url, { BROWSER: "/bin/echo --new %s" }), [
    "/bin/echo",
    "--new",
    url,
  ]);
  assert.deepEqual(browserCommand(url, { BROWSER: "no-such-browser-xyz:/bin/true" }), [
    "/bin/true",
    url,
  ]);
  assert.equal(browserCommand(url, {}), Deno.build.os === "darwin" ? "open" : null);
});

Deno.test({
  name:
    "a redirect carrying another sign-in's state is refused and no token is stored (needs curl)",
  ...needs("curl"),
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const server = await startOAuthServer();
  const dir = await Deno.makeTempDir();
  // A "browser" that ignores the authorization address and sends a forged code to svc's port.
  const forge = `${dir}/forge.sh`;
  await Deno.writeTextFile(
    forge,
    '#!/bin/sh\nport=$(echo "$1" | sed "s/.*redirect_uri=http%3A%2F%2F127.0.0.1%3A\\([0-9]*\\).*/\\1/")\n' +
      'exec curl -s -o /dev/null "http://127.0.0.1:$port/callback?code=forged&state=forged"\n',
  );
  await Deno.chmod(forge, 0o755);
  try {
    await assert.rejects(
      signIn({ name: "srv", url: server.url }, {
        print: () => {},
        env: { BROWSER: forge },
        timeoutMs: 10_000,
        dir,
      }),
      /the browser came back with another sign-in's state \(a stale or forged redirect\)/,
    );
    assert.equal(server.counts.code, 0);
    const stored = JSON.parse(await Deno.readTextFile(`${dir}/mcp_oauth.json`))[server.url];
    assert.equal(stored.tokens, undefined);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stored tokens go only to their URL and issuer; a connection never registers or redirects", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = "https://mcp.example/mcp";
    await changeGrant(url, {
      dir,
      fn: () => ({
        issuer: "https://as.example/",
        tokens: { access_token: "A", issuer: "https://as.example/" },
      }),
    });
    const mine = await new SvcOAuthProvider({ server: "x", url, dir }).load();
    assert.equal(mine.tokens()?.access_token, "A");
    assert.equal(mine.tokens({ issuer: "https://evil.example/" }), undefined);
    const other = await new SvcOAuthProvider({ server: "y", url: "https://mcp.example/other", dir })
      .load();
    assert.equal(other.tokens(), undefined);
    await assert.rejects(
      other.saveClientInformation({ client_id: "c" }),
      (err) =>
        err instanceof SignInNeeded &&
        err.message === "MCP server y needs you to sign in: run svc mcp login y",
    );
    await assert.rejects(
      mine.redirectToAuthorization(new URL("https://as.example/authorize?scope=a+b")),
      /^SignInNeeded: MCP server x needs you to sign in again \(the stored sign-in expired, was refused or lacks a scope\): run svc mcp login x$/,
    );
    // A 401 from a server without any OAuth metadata (a plain bearer-token server).
    other.saveDiscoveryState({ authorizationServerUrl: "https://mcp.example/" });
    assert.throws(
      () => other.clientInformation(),
      new SignInNeeded(
        "y",
        "answered 401 (unauthorized) and publishes no OAuth metadata",
        " if it signs in with OAuth; else give it credentials in its entry's headers",
      ),
    );
    // The scope the server asked for is remembered for the next login.
    assert.equal((await new SvcOAuthProvider({ server: "x", url, dir }).load()).wantedScope, "a b");
    assert.equal((await Deno.stat(`${dir}/mcp_oauth.json`)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** An `ask` that answers from a script and records the questions. */
function scripted(answers: (string | null)[]) {
  const asked: AskRequest[] = [];
  return {
    asked,
    ask: (request: AskRequest) => {
      asked.push(request);
      return Promise.resolve(answers.length ? answers.shift()! : null);
    },
  };
}

const form: ElicitParams = {
  message: "How many?",
  requestedSchema: {
    properties: {
      count: { type: "integer", title: "Count", minimum: 1, maximum: 9 },
      tags: { type: "array", items: { enum: ["a", "b", "c"] } },
      note: { type: "string" },
    },
    required: ["count"],
  },
};

Deno.test("elicit: fields are asked in turn, bad answers asked again with the reason, optional ones left out", async () => {
  const person = scripted(["answer", "twelve", "12", "3", "a, c", ""]);
  assert.deepEqual(await elicit(form, { server: "s", ask: person.ask }), {
    action: "accept",
    content: { count: 3, tags: ["a", "c"] },
    author: "the person",
  });
  assert.deepEqual(person.asked.map((q) => [q.question, q.context, q.options]), [
    ["MCP server s asks: How many?", "It wants: Count, tags, note", [
      "answer",
      "decline",
      "cancel",
    ]],
    ["Count", undefined, undefined],
    ["Count", "Answer with a whole number.", undefined],
    ["Count", "Answer between 1 and 9.", undefined],
    [
      "tags (optional)",
      "several: separate them with commas; optional: an empty answer leaves it out",
      ["a", "b", "c"],
    ],
    ["note (optional)", "optional: an empty answer leaves it out", undefined],
  ]);
});

Deno.test("elicit: declined headless, by the person, cancelled when dismissed; URL mode is declined", async () => {
  assert.deepEqual(await elicit(form, { server: "s", ask: scripted([]).ask }), {
    action: "decline",
    author: "svc (no one to answer: this run is headless)",
  });
  assert.deepEqual(await elicit(form, { server: "s", ask: scripted(["decline"]).ask }), {
    action: "decline",
    author: "the person",
  });
  const dismissed = "(the user dismissed the question without an answer)";
  assert.deepEqual(await elicit(form, { server: "s", ask: scripted(["answer", dismissed]).ask }), {
    action: "cancel",
    author: "the person",
  });
  assert.deepEqual(
    await elicit({ message: "Open this", mode: "url" }, { server: "s", ask: scripted([]).ask }),
    { action: "decline", author: "svc (it answers only form questions, not url)" },
  );
});
