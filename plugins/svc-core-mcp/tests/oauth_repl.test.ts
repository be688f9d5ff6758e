/**
 * The REPL in a real pseudo-terminal against the OAuth-protected test server (oauth_server.ts):
 * `/mcp login` signs in through the $BROWSER script, `/mcp connect` uses the token, and the
 * server's form question (elicitation/create) during a tool call is put to the person field by
 * field, with its default and its choices; the answer goes back to the server.
 */
import assert from "node:assert/strict";
import { sandbox } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { needs } from "../../../tests/_support/tools.ts";
import { PtyRepl } from "../../../tests/repl/_pty.ts";
import { startOAuthServer } from "./oauth_server.ts";

Deno.test({
  name:
    "REPL: /mcp login signs in through $BROWSER, and a server's form question is asked field by field and answered (needs script, curl)",
  ...needs("script", "curl"),
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const server = await startOAuthServer();
  await using box = await sandbox();
  // deno-lint-ignore no-explicit-any
  const fake = await startFakeProvider((body: any) => {
    const last = body.messages.at(-1);
    if (last.role === "tool") return { text: `tool said: ${String(last.content).split("\n")[0]}` };
    return { tool_calls: [{ name: "srv__confirm", arguments: {} }] };
  });
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({
      "mcp.servers": [{ name: "srv", transport: "http", url: server.url }],
      tool_permission: { mcp: "allow" },
    }),
  );
  const browser = `${box.home}/browser.sh`;
  await Deno.writeTextFile(browser, '#!/bin/sh\nexec curl -s -o /dev/null -L "$1"\n');
  await Deno.chmod(browser, 0o755);
  await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({ base_url: fake.url, model: "fake-model" }),
  );
  const repl = new PtyRepl({ cwd: box.worktree, env: { ...box.env, BROWSER: browser } });
  try {
    await repl.waitFor(/generic\/fake-model · ctx/);
    await repl.send("/mcp login srv\r");
    await repl.waitFor(/Signed in to srv \(scope mcp:tools\); connect it with \/mcp connect srv/);
    await repl.send("/mcp connect srv\r");
    await repl.waitFor(/Connected srv \(http, MCP [\d-]+\): 2 tools: srv\.whoami, srv\.confirm/);

    await repl.send("delete the branch\r");
    await repl.waitFor(
      /\? MCP server srv asks: Delete the branch\?\n.*It wants: Branch, Force, Color\n +1\. answer\n +2\. decline\n +3\. cancel/,
    );
    await repl.send("1\r");
    await repl.waitFor(/\? Branch\n.*default: "main" \(an empty answer takes it\)/);
    await repl.send("\r");
    await repl.waitFor(
      /\? Force \(optional\)\n.*optional: an empty answer leaves it out\n +1\. yes\n +2\. no/,
    );
    await repl.send("yes\r");
    await repl.waitFor(/\? Color\n +1\. red\n +2\. green/);
    await repl.send("2\r");
    await repl.waitFor(
      /tool said: answer: \{"action":"accept","content":\{"branch":"main","force":true,"color":"green"\}\}/,
    );
    const result = fake.requests.at(-1)!.body.messages.at(-1).content;
    assert.equal(
      result,
      'answer: {"action":"accept","content":{"branch":"main","force":true,"color":"green"}}\n' +
        '[MCP server srv asked "Delete the branch?": accepted (branch, force, color) by the person]',
    );
    await repl.send("/exit\r");
    assert.equal(await repl.exit(), 0);
  } finally {
    await fake.close();
    await server.close();
  }
});
