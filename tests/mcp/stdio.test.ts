import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { SessionStore } from "../../src/session/store.ts";
import { VERSION } from "../../src/version.ts";
import { type AnyClient, ENVELOPE, v1Stdio, v2Stdio } from "./_clients.ts";
import { spawnMcp } from "./_lines.ts";

/** A worktree with a file to read and one real session on disk. */
async function worktree(config?: Record<string, unknown>) {
  const box = await sandbox({ "notes.txt": "alpha\nbeta\n" });
  if (config) {
    await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(`${box.worktree}/.svc/config.json`, JSON.stringify(config));
  }
  const session = await new SessionStore(box.worktree).openOrCreate("saved");
  await session.appendMessage({
    role: "user",
    content: "hello",
    timestamp: "2026-01-01T00:00:00Z",
  });
  return box;
}

/** What every client must be able to do against `svc mcp`. */
async function exercise(client: AnyClient, worktree: string): Promise<void> {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ["file_read", "list_dir", "file_write"]) assert.ok(names.includes(name), name);
  const read = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } }) as {
    content: Array<{ type: string; text: string }>;
  };
  assert.equal(read.content[0].type, "text");
  assert.match(read.content[0].text, /1\s+alpha/);
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => [r.uri, r.name]), [["svc://session/saved", "saved"]]);
  const doc = await client.readResource({ uri: "svc://session/saved" });
  const stored = JSON.parse(await Deno.readTextFile(`${worktree}/.svc/sessions/saved.json`));
  assert.deepEqual(JSON.parse(doc.contents[0].text as string), stored);
}

for (const era of ["auto", "legacy"] as const) {
  Deno.test(`v2 client (${era}) drives svc mcp over stdio`, async () => {
    await using box = await worktree();
    const client = await v2Stdio(era, box.worktree, box.env);
    try {
      assert.equal(
        client.getNegotiatedProtocolVersion(),
        era === "auto" ? "2026-07-28" : "2025-11-25",
      );
      assert.deepEqual(client.getServerVersion(), { name: "svc", version: VERSION });
      await exercise(client as unknown as AnyClient, box.worktree);
    } finally {
      await client.close();
    }
  });
}

Deno.test("v1 SDK client (legacy) drives svc mcp over stdio", async () => {
  await using box = await worktree();
  const client = await v1Stdio(box.worktree, box.env);
  try {
    await exercise(client as unknown as AnyClient, box.worktree);
  } finally {
    await client.close();
  }
});

Deno.test("raw JSON-RPC lines, modern era: discover, enveloped calls, -32602 without _meta", async () => {
  await using box = await worktree();
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } });
  const discovered = await mcp.response(1);
  assert.deepEqual(discovered.result.supportedVersions, ["2026-07-28"]);
  assert.deepEqual(discovered.result.capabilities, {
    tools: { listChanged: false },
    resources: { listChanged: false, subscribe: true },
    prompts: { listChanged: false },
    logging: {},
    completions: {},
  });
  await mcp.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: ENVELOPE } });
  assert.ok((await mcp.response(2)).result.tools.some((t: { name: string }) => t.name === "grep"));
  await mcp.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });
  const missing = await mcp.response(3);
  assert.equal(missing.error.code, -32602);
  assert.match(missing.error.message, /missing the required per-request envelope key\(s\): _meta/);
  await mcp.send({
    jsonrpc: "2.0",
    id: 4,
    method: "resources/read",
    params: { uri: "svc://session/saved", _meta: ENVELOPE },
  });
  const read = await mcp.response(4);
  assert.equal(JSON.parse(read.result.contents[0].text).name, "saved");
  const { code } = await mcp.finish();
  assert.equal(code, 0);
  assert.deepEqual(mcp.lines.map((m) => m.id), [1, 2, 3, 4]);
});

Deno.test("raw JSON-RPC lines: an opening request with a partial _meta envelope is -32602", async () => {
  await using box = await worktree();
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
  });
  const reply = await mcp.response(1);
  assert.deepEqual(reply.error, {
    code: -32602,
    message:
      "Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing",
    data: { envelope: { key: "io.modelcontextprotocol/clientCapabilities", problem: "missing" } },
  });
  assert.equal((await mcp.finish()).code, 0);
});

Deno.test("raw JSON-RPC lines, legacy era: initialize, then allow_ask false refuses file_write", async () => {
  await using box = await worktree({ "mcp_server.allow_ask": false });
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  const init = await mcp.response(1);
  assert.equal(init.result.protocolVersion, "2025-06-18");
  assert.deepEqual(init.result.serverInfo, { name: "svc", version: VERSION });
  await mcp.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await mcp.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "file_write", arguments: { path: "new.txt", content: "x" } },
  });
  assert.deepEqual((await mcp.response(2)).result, {
    content: [{
      type: "text",
      text:
        "Error: file_write needs confirmation (edit category is ask) and mcp_server.allow_ask is false",
    }],
    isError: true,
  });
  await assert.rejects(Deno.stat(`${box.worktree}/new.txt`), Deno.errors.NotFound);
  const { code } = await mcp.finish();
  assert.equal(code, 0);
  const audit = await Deno.readTextFile(`${box.worktree}/.svc/logs/mcp_audit.jsonl`);
  assert.equal(JSON.parse(audit).outcome, "denied");
});

Deno.test("allow_ask true (default): file_write runs for the MCP client over stdio", async () => {
  await using box = await worktree();
  const client = await v2Stdio("legacy", box.worktree, box.env);
  try {
    const result = await client.callTool({
      name: "file_write",
      arguments: { path: "new.txt", content: "from mcp\n" },
    });
    assert.equal(result.isError, undefined);
    assert.equal(await Deno.readTextFile(`${box.worktree}/new.txt`), "from mcp\n");
  } finally {
    await client.close();
  }
  const stored = await new SessionStore(box.worktree).read("saved");
  assert.equal(stored.messages.length, 1);
  assert.equal(stored.permissions.length, 0);
});

Deno.test("raw JSON-RPC lines: not JSON is -32700, a batch or a non-message -32600, as over HTTP", async () => {
  await using box = await worktree();
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send("{nope");
  await mcp.send(JSON.stringify([{ jsonrpc: "2.0", id: 5, method: "tools/list" }]));
  await mcp.send(JSON.stringify({ hello: "world", id: 6 }));
  await mcp.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } });
  assert.deepEqual((await mcp.response(1)).result.supportedVersions, ["2026-07-28"]);
  assert.equal((await mcp.finish()).code, 0);
  assert.deepEqual(mcp.lines.slice(0, 3), [
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the line is not valid JSON" },
    },
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message:
          "Invalid Request: JSON-RPC batches are not served on stdio; send one message per line",
      },
    },
    {
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" },
    },
  ]);
});

Deno.test("at the end of input svc mcp answers every pending request before it exits", async () => {
  await using box = await worktree();
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "r", version: "1" },
    },
  });
  await mcp.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await mcp.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "run_command", arguments: { command: "sleep 1 && echo late" } },
  });
  await mcp.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "file_read", arguments: { path: "notes.txt" } },
  });
  const { code } = await mcp.finish();
  assert.equal(code, 0);
  // Notifications (run_command's output line as a log message) may come between the answers.
  const answers = new Map(mcp.lines.filter((m) => "id" in m).map((m) => [m.id, m]));
  assert.deepEqual([...answers.keys()].sort(), [1, 2, 3]);
  assert.match(answers.get(2)!.result.content[0].text, /late/);
  assert.match(answers.get(3)!.result.content[0].text, /1\s+alpha/);
});

Deno.test("hook warnings on a tool called over svc mcp go to stderr, never to the JSON-RPC stdout", async () => {
  await using box = await worktree();
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  const hook = (command: string) => [{ matcher: "Read", hooks: [{ type: "command", command }] }];
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({
      hooks: {
        PreToolUse: hook(`echo '{"systemMessage": "reads are watched"}'`),
        PostToolUse: hook("echo not json"),
      },
    }),
  );
  const mcp = spawnMcp(box.worktree, box.env);
  await mcp.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "file_read", arguments: { path: "notes.txt" }, _meta: ENVELOPE },
  });
  const read = await mcp.response(1);
  assert.match(read.result.content[0].text, /1\s+alpha/);
  const { code, stderr } = await mcp.finish();
  assert.equal(code, 0);
  assert.match(stderr, /svc mcp: warning: reads are watched\n/);
  assert.match(stderr, /svc mcp: warning: PostToolUse hook `echo not json` printed output that/);
  assert.deepEqual(mcp.lines.map((m) => m.id), [1]);
});
