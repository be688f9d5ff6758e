/**
 * Servers are untrusted: each way a server can misbehave ends as a tool error (or a note), svc
 * keeps working, and the state the user sees in mcp_list says what happened. The hostile
 * fixture (hostile_server.ts) breaks the protocol one way per mode.
 */
import assert from "node:assert/strict";
import { mcpTest } from "./_client.ts";
import { fixture } from "./_servers.ts";

/** A hostile entry named `bad` in `mode`, with a short timeout. */
function hostile(mode: string, log?: string, extra: Record<string, unknown> = {}) {
  return fixture("bad", "hostile_server.ts", log ? [mode, log] : [mode], { timeout: 1, ...extra });
}

Deno.test("a banner printed on stdout before the first message is skipped", async () => {
  await using t = await mcpTest([hostile("banner")]);
  assert.equal((await t.call("mcp_connect")).ok, true);
  assert.deepEqual(await t.call("bad__echo", { text: "hi" }), { content: "echo: hi", ok: true });
});

Deno.test("a server that crashes mid-call gives a tool error naming its exit and stderr; its tools go, svc goes on", async () => {
  await using t = await mcpTest([hostile("crash")]);
  assert.equal((await t.call("mcp_connect")).ok, true);
  const crashed = await t.call("bad__echo", { text: "hi" });
  assert.equal(crashed.ok, false);
  assert.match(
    crashed.content,
    /^Error: bad\.echo failed: .*MCP server bad is disconnected \(the server exited with code 3; its stderr ended with: boom: simulated crash in the tool\)$/,
  );
  assert.equal(t.clients.stateOf("bad"), "failed");
  assert.equal(
    (await t.call("mcp_list")).content,
    "bad: failed (stdio " + Deno.execPath() + "): the connection ended: the server exited with " +
      "code 3; its stderr ended with: boom: simulated crash in the tool",
  );
  assert.equal(t.offered().includes("bad__echo"), false);
  // Connecting again starts a fresh process.
  assert.equal((await t.call("mcp_connect", { server: "bad" })).ok, true);
  assert.equal(t.clients.stateOf("bad"), "connected");
});

Deno.test("an invalid JSON reply is skipped and the call ends at the server's timeout", async () => {
  await using t = await mcpTest([hostile("garbage")]);
  assert.equal((await t.call("mcp_connect")).ok, true);
  assert.deepEqual(await t.call("bad__echo", { text: "hi" }), {
    content: "Error: bad.echo failed: no answer within 1 s (the server's timeout); the request " +
      "was cancelled",
    ok: false,
  });
  assert.equal(t.clients.stateOf("bad"), "connected");
});

Deno.test("a stalled call is cancelled at the timeout: the server is sent notifications/cancelled", async () => {
  const log = await Deno.makeTempFile();
  try {
    await using t = await mcpTest([hostile("stall", log)]);
    assert.equal((await t.call("mcp_connect")).ok, true);
    const started = performance.now();
    const stalled = await t.call("bad__echo", { text: "hi" });
    assert.equal(stalled.ok, false);
    assert.match(stalled.content, /no answer within 1 s/);
    assert.ok(performance.now() - started < 5000);
    const received = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    const call = received.find((m) => m.method === "tools/call");
    const cancel = received.find((m) => m.method === "notifications/cancelled");
    assert.equal(cancel?.params.requestId, call.id);
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("a result over the message cap ends the connection with an error, not svc's memory", async () => {
  await using t = await mcpTest([hostile("huge", undefined, { timeout: 30 })]);
  assert.equal((await t.call("mcp_connect")).ok, true);
  const huge = await t.call("bad__echo", { text: "hi" });
  assert.equal(huge.ok, false);
  assert.match(
    huge.content,
    /^Error: bad\.echo failed: .*MCP server bad is disconnected \(the server sent a message over 16777216 bytes/,
  );
  assert.equal(t.clients.stateOf("bad"), "failed");
});

Deno.test("an input_required question mid-call is declined headless and the call retried with the answer", async () => {
  await using t = await mcpTest([hostile("input-required")]);
  assert.match((await t.call("mcp_connect")).content, /^Connected bad \(stdio, MCP 2026-07-28\)/);
  assert.deepEqual(await t.call("bad__echo", { text: "hi" }), {
    content: 'echo: hi; answer {"action":"decline"}\n[MCP server bad asked "Echo it?": ' +
      "declined by svc (no one to answer: this run is headless)]",
    ok: true,
  });
});

Deno.test("an unsupported-version answer to the probe negotiates a revision both support", async () => {
  await using t = await mcpTest([hostile("old-version")]);
  assert.match((await t.call("mcp_connect")).content, /^Connected bad \(stdio, MCP 2025-06-18\)/);
  assert.deepEqual(await t.call("bad__echo", { text: "hi" }), { content: "echo: hi", ok: true });
});

Deno.test("a stdio server that quits on the server/discover probe is started again with initialize", async () => {
  await using t = await mcpTest([hostile("quit-on-probe")]);
  assert.match((await t.call("mcp_connect")).content, /^Connected bad \(stdio, MCP 2025-11-25\)/);
  assert.deepEqual(await t.call("bad__echo", { text: "hi" }), { content: "echo: hi", ok: true });
});

Deno.test("oversized, misnamed and malformed definitions are skipped or capped, each with its reason", async () => {
  await using t = await mcpTest([hostile("oversized")]);
  const connected = await t.call("mcp_connect");
  const long = "x".repeat(128);
  assert.match(
    connected.content,
    /^Connected bad \(stdio, MCP 2025-11-25\): 2 tools: bad\.echo, bad\.wordy; /,
  );
  assert.match(
    connected.content,
    new RegExp(
      '\\nNot imported: "bad name": name is not 1-128 letters, digits, _ \\. or -; ' +
        '"huge_schema": inputSchema is \\d+ bytes, over the limit of 16384; ' +
        `"${long}": bad\\.${long} is longer than 128 characters$`,
    ),
  );
  await t.call("mcp_list");
  const wordy = t.h.fake.requests.at(-1)!.body.tools.find((
    s: { function: { name: string } },
  ) => s.function.name === "bad__wordy").function.description as string;
  assert.match(wordy, /^\[MCP server bad\] Line one\[31m blah blah /);
  assert.match(wordy, /\.\.\. \(description cut at 2000 characters\)$/);
  assert.equal(
    wordy.length,
    "[MCP server bad] ".length + 2000 + "... (description cut at 2000 characters)".length,
  );
});

Deno.test("a tool whose definition changes after connect is disabled until the server is connected again", async () => {
  await using t = await mcpTest([fixture("old", "legacy_server.ts")]);
  assert.equal((await t.call("mcp_connect")).ok, true);
  assert.deepEqual(await t.call("old__greet", { name: "ada" }), { content: "hello ada", ok: true });
  assert.deepEqual(await t.call("old__change_greet"), { content: "changed", ok: true });
  assert.equal(
    (await t.call("mcp_list")).content.split("\n").slice(1).join("\n"),
    "  tools: old.add, old.change_greet\n" +
      "  disabled, changed after connect (run mcp_connect old): old.greet",
  );
  const refused = await t.call("old__greet", { name: "ada" });
  assert.match(refused.content, /^Error: unknown tool "old__greet"\. Available tools: .*old__add/);
  assert.equal(t.offered().includes("old__greet"), false);
  // Connecting again starts the server afresh and imports what it lists then.
  assert.match((await t.call("mcp_connect", { server: "old" })).content, /^Connected old /);
  assert.deepEqual(await t.call("old__greet", { name: "ada" }), { content: "hello ada", ok: true });
});

Deno.test("a listing that breaks the protocol's schema fails the connect, naming the field", async () => {
  await using t = await mcpTest([hostile("invalid-list")]);
  assert.deepEqual(await t.call("mcp_connect"), {
    content: "Error: could not connect bad: the server broke the protocol: Invalid result for " +
      'tools/list: tools.1.inputSchema.type: Invalid input: expected "object"',
    ok: false,
  });
});

Deno.test("a command that does not exist fails the connect with a readable reason", async () => {
  await using t = await mcpTest([{ name: "ghost", command: "/nonexistent/mcp-server" }]);
  const failed = await t.call("mcp_connect");
  assert.equal(failed.ok, false);
  // Started directly, or under setpriv (which then reports the missing program).
  assert.match(
    failed.content,
    /^Error: could not connect ghost: (cannot start \/nonexistent\/mcp-server: \/nonexistent\/mcp-server was not found \(or the folder .* does not exist\)|the server exited with code \d+; its stderr ended with: setpriv: failed to execute \/nonexistent\/mcp-server: No such file or directory)$/,
  );
  assert.equal(t.clients.stateOf("ghost"), "failed");
});
