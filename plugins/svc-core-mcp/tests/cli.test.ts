/**
 * The MCP client as a user meets it: servers named in the global config, `svc serve` connecting
 * in one turn and using the imported tool in the next, `svc run` with `autoconnect`, and an
 * untrusted worktree whose own mcp.servers is ignored.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { startServe, writeConfig } from "../../../tests/http/_serve.ts";
import { npmStdio } from "./_servers.ts";

const json = { "content-type": "application/json" };

/** Writes `~/.config/svc/config.json` under the sandbox's HOME. */
async function globalConfig(home: string, config: Record<string, unknown>): Promise<void> {
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(config));
}

const fsServer = (root: string, extra = {}) =>
  npmStdio("fs", "@modelcontextprotocol/server-filesystem", [root], extra);

const names = (body: { tools?: Array<{ function: { name: string } }> }) =>
  (body.tools ?? []).map((t) => t.function.name);

Deno.test("svc serve: one turn connects server-filesystem, the next reads a file through its imported tool", async () => {
  await using box = await sandbox({ "notes.txt": "the word is parsnip\n" });
  const path = `${box.worktree}/notes.txt`;
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "mcp_connect", arguments: { server: "fs" } }] },
    { text: "connected" },
    { tool_calls: [{ name: "fs__read_text_file", arguments: { path } }] },
    { text: "the word is parsnip" },
  ]);
  await globalConfig(box.home, {
    "mcp.servers": [fsServer(box.worktree)],
    tool_permission: { mcp: "allow" },
  });
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    const chat = async (prompt: string) => {
      const res = await served.fetch(`${served.url}/chat`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ prompt, session_id: "files" }),
      });
      return await res.json();
    };
    const first = await chat("connect the filesystem server");
    assert.deepEqual(
      first.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]),
      [["mcp_connect", true]],
    );
    const second = await chat("what is the word in notes.txt?");
    assert.deepEqual(
      second.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]),
      [["fs.read_text_file", true]],
    );
    assert.equal(second.content, "the word is parsnip");
    assert.equal(fake.requests[3].body.messages.at(-1).content, "the word is parsnip\n");
    assert.equal(names(fake.requests[0].body).includes("fs__read_text_file"), false);
    assert.equal(names(fake.requests[2].body).includes("fs__read_text_file"), true);
  } finally {
    await served.stop();
    await fake.close();
  }
});

Deno.test("svc run with autoconnect calls an imported tool in its one turn", async () => {
  await using box = await sandbox({ "notes.txt": "the word is turnip\n" });
  const fake = await startFakeProvider([
    {
      tool_calls: [{
        name: "fs__read_text_file",
        arguments: { path: `${box.worktree}/notes.txt` },
      }],
    },
    { text: "the word is turnip" },
  ]);
  await globalConfig(box.home, {
    "mcp.servers": [fsServer(box.worktree, { autoconnect: true })],
    tool_permission: { mcp: "allow" },
  });
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "read notes.txt"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual(
    result.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]),
    [["fs.read_text_file", true]],
  );
  assert.equal(fake.requests[1].body.messages.at(-1).content, "the word is turnip\n");
});

Deno.test("svc run warns when an autoconnect server cannot start, and still answers", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "fine" }]);
  await globalConfig(box.home, {
    "mcp.servers": [{ name: "ghost", command: "/nonexistent/mcp-server", autoconnect: true }],
  });
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "hello"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "fine\n");
  assert.match(out.stderr, /^warning: MCP autoconnect: could not connect ghost: /m);
});

/** Runs svc with a worktree whose own config names a "server" that creates `marker`. */
async function runWithLocalServer(trusted: boolean, marker: string) {
  await using box = await sandbox({}, { trusted });
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "mcp_connect", arguments: {} }] },
    { text: "done" },
  ]);
  await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({
      "mcp.servers": [{ name: "evil", command: "touch", args: [marker], autoconnect: true }],
      tool_permission: { mcp: "allow" },
    }),
  );
  await globalConfig(box.home, { tool_permission: { mcp: "allow" } });
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "connect"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  const offered = fake.requests[0].body.tools.map((t: { function: { name: string } }) =>
    t.function.name
  );
  const session = JSON.parse(out.stdout).session;
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${session}.json`),
  );
  return {
    out,
    offered,
    toolResult: fake.requests[1]?.body.messages.at(-1).content as string,
    audit: stored.permissions,
  };
}

Deno.test("an untrusted worktree's own mcp.servers is ignored: nothing is configured, nothing starts", async () => {
  const marker = await Deno.makeTempFile();
  await Deno.remove(marker);
  try {
    // Trusted, the worktree's entry is configured but starts only once approved (the "server"
    // would create the marker on start; approval.test.ts covers approving it).
    const trusted = await runWithLocalServer(true, marker);
    assert.equal(trusted.out.code, 0, trusted.out.stderr);
    assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
    assert.equal(trusted.offered.includes("mcp_connect"), true);
    assert.match(trusted.toolResult, /MCP server evil was not started: .*svc trust --mcp evil/);
    const { out, offered, toolResult, audit } = await runWithLocalServer(false, marker);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /ignored mcp\.servers from .*: this worktree is not trusted/);
    // With no server configured the MCP tools are not offered; the audit says why.
    assert.equal(offered.some((name: string) => name.startsWith("mcp_")), false);
    assert.match(toolResult, /^Error: unknown tool "mcp_connect"\. Available tools: ask, /);
    assert.equal(audit[0].reason, "not offered: no MCP servers are configured (mcp.servers)");
    assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
  } finally {
    await Deno.remove(marker).catch(() => {});
  }
});
