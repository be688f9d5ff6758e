import assert from "node:assert/strict";
import * as z from "zod";
import { echoTool, harness } from "../_support/engine.ts";
import { auditPath, servedTools } from "../../src/runtime/mod.ts";
import { Mutex } from "../../src/http/mod.ts";
import type { PermissionRecord } from "../../src/session/types.ts";
import type { Tool } from "../../src/tool/types.ts";

const live = () => new AbortController().signal;
/** A client that proved itself (svc serve's token, or the process that ran svc mcp). */
const AUTHENTICATED = { authenticated: true };

/** A read tool whose own resolver denies some calls (as bash_allow does for run_command). */
const guarded: Tool = {
  ...echoTool("guarded", "read"),
  resolvePolicy: (args) => (String(args.text).startsWith("rm") ? "deny" : undefined),
};

const failing: Tool = {
  name: "failing",
  category: "read",
  description: "Always throws",
  schema: z.object({}),
  run: () => Promise.reject(new Error("disk on fire")),
};

async function setup(config: Record<string, unknown> = {}) {
  const h = await harness([], {
    tools: [echoTool("echo", "read"), echoTool("writer", "edit"), guarded, failing],
    config,
  });
  const records: PermissionRecord[] = [];
  const tools = servedTools(h.runtime, {
    audit: (record) => {
      records.push(record);
      return Promise.resolve();
    },
  });
  return { h, tools, records };
}

function trimmed(records: PermissionRecord[]) {
  return records.map(({ at: _at, call_id: _id, ...rest }) => rest);
}

Deno.test("exposed tools are the policy-filtered registered tools, without ask", async () => {
  const { h, tools } = await setup({ "tools.deny": ["writer"] });
  await using _ = h;
  assert.deepEqual(tools.list().map((t) => [t.name, t.category]), [
    ["echo", "read"],
    ["guarded", "read"],
    ["failing", "read"],
  ]);
  const { tools: planned, h: h2 } = await setup({ mode: "plan" });
  await using _2 = h2;
  assert.equal(planned.list().some((t) => t.name === "writer"), false);
  const { tools: none, h: h3 } = await setup({ tool_calling: false });
  await using _3 = h3;
  assert.deepEqual(none.list(), []);
});

Deno.test("an allowed call is normalized like the agent loop and audited, with no session", async () => {
  const { h, tools, records } = await setup();
  await using _ = h;
  const result = await tools.call("echo_alias", { words: "hi", extra: true, path: null }, live());
  assert.deepEqual(result, { content: 'echo: {"text":"hi"}', ok: true });
  assert.deepEqual(trimmed(records), [{
    tool: "echo",
    category: "read",
    action: "allow",
    outcome: "allowed",
    by: "policy",
    reason: "read category is allow",
  }]);
  assert.deepEqual(await h.store.list(), []);
});

Deno.test("ask-policy tools run for an authenticated client when mcp_server.allow_ask is true (default)", async () => {
  const { h, tools, records } = await setup();
  await using _ = h;
  assert.deepEqual(await tools.call("writer", { text: "x" }, live(), AUTHENTICATED), {
    content: 'echo: {"text":"x"}',
    ok: true,
  });
  assert.deepEqual(trimmed(records).map((r) => [r.action, r.outcome, r.by]), [
    ["ask", "approved", "client"],
  ]);
});

Deno.test("ask-policy tools are refused for an unauthenticated client, whatever allow_ask says", async () => {
  const { h, tools, records } = await setup({ "mcp_server.allow_ask": true });
  await using _ = h;
  const refusal =
    "Error: writer needs confirmation (edit category is ask) and this MCP client is " +
    "not authenticated (svc serve --no-auth); serve with a token to let clients confirm";
  for (const client of [undefined, { authenticated: false }]) {
    assert.deepEqual(await tools.call("writer", { text: "x" }, live(), client), {
      content: refusal,
      ok: false,
    });
  }
  assert.deepEqual(await tools.call("echo", { text: "x" }, live()), {
    content: 'echo: {"text":"x"}',
    ok: true,
  });
  assert.deepEqual(trimmed(records).map((r) => [r.tool, r.action, r.outcome, r.by]), [
    ["writer", "ask", "denied", "policy"],
    ["writer", "ask", "denied", "policy"],
    ["echo", "allow", "allowed", "policy"],
  ]);
});

Deno.test("the ask tool, which no MCP client can answer, cannot be called", async () => {
  const { h, tools, records } = await setup();
  await using _ = h;
  const result = await tools.call("ask", { question: "why?" }, live(), AUTHENTICATED);
  assert.deepEqual(result, {
    content: 'Error: unknown tool "ask". Available tools: echo, writer, guarded, failing',
    ok: false,
  });
  assert.deepEqual(trimmed(records).map((r) => [r.tool, r.outcome]), [["ask", "denied"]]);
});

Deno.test("ask-policy tools are refused when mcp_server.allow_ask is false", async () => {
  const { h, tools, records } = await setup({ "mcp_server.allow_ask": false });
  await using _ = h;
  assert.deepEqual(await tools.call("writer", { text: "x" }, live(), AUTHENTICATED), {
    content:
      "Error: writer needs confirmation (edit category is ask) and mcp_server.allow_ask is false",
    ok: false,
  });
  const outside = await tools.call(
    "echo",
    { text: "x", path: "/etc/passwd" },
    live(),
    AUTHENTICATED,
  );
  assert.deepEqual(outside, {
    content:
      "Error: echo needs confirmation (path is outside the worktree) and mcp_server.allow_ask is false",
    ok: false,
  });
  assert.deepEqual(trimmed(records).map((r) => [r.tool, r.action, r.outcome]), [
    ["writer", "ask", "denied"],
    ["echo", "ask", "denied"],
  ]);
});

Deno.test("a deny verdict is always refused, whatever allow_ask says", async () => {
  const { h, tools, records } = await setup({ "mcp_server.allow_ask": true });
  await using _ = h;
  assert.deepEqual(await tools.call("guarded", { text: "rm -rf /" }, live()), {
    content: "Error: guarded is not permitted (guarded policy requires deny)",
    ok: false,
  });
  assert.deepEqual(await tools.call("guarded", { text: "ls" }, live()), {
    content: 'echo: {"text":"ls"}',
    ok: true,
  });
  assert.deepEqual(trimmed(records).map((r) => r.outcome), ["denied", "allowed"]);
});

Deno.test("unknown tools, bad arguments and throwing tools come back as error results", async () => {
  const { h, tools, records } = await setup({ "tools.deny": ["writer"] });
  await using _ = h;
  const unknown = await tools.call("writer", { text: "x" }, live());
  assert.equal(unknown.ok, false);
  assert.match(
    unknown.content,
    /^Error: unknown tool "writer". Available tools: echo, guarded, failing/,
  );
  assert.deepEqual(await tools.call("echo", { text: 5 }, live()), {
    content:
      "Error: invalid arguments for echo: text: Invalid input: expected string, received number",
    ok: false,
  });
  assert.deepEqual(await tools.call("echo", "not an object", live()), {
    content: "Error: arguments for echo must be a JSON object",
    ok: false,
  });
  assert.deepEqual(await tools.call("failing", {}, live()), {
    content: "Error: tool failed: disk on fire",
    ok: false,
  });
  assert.deepEqual(trimmed(records).map((r) => r.reason), [
    "not offered: listed in tools.deny",
    "invalid arguments",
    "invalid arguments",
    "read category is allow",
  ]);
});

Deno.test("served calls wait for the engine lock", async () => {
  const h = await harness([], { tools: [echoTool("echo", "read")] });
  await using _ = h;
  const lock = new Mutex();
  const tools = servedTools(h.runtime, {
    serialize: (fn, signal) => lock.run(fn, signal),
    audit: () => Promise.resolve(),
  });
  let release!: () => void;
  const held = lock.run(() => new Promise<void>((r) => release = r));
  let done = false;
  const call = tools.call("echo", { text: "queued" }, live()).then((r) => {
    done = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  release();
  await held;
  assert.deepEqual(await call, { content: 'echo: {"text":"queued"}', ok: true });
});

Deno.test("the audit path is under .svc/logs", () => {
  assert.equal(auditPath("/w"), "/w/.svc/logs/mcp_audit.jsonl");
});

Deno.test("a shutdown cancels a running served tool", async () => {
  const slow: Tool = {
    name: "slow",
    category: "read",
    description: "Waits until cancelled",
    schema: z.object({}),
    run: (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve("stopped early"), { once: true })
      ),
  };
  const h = await harness([], { tools: [slow] });
  await using _ = h;
  const shutdown = new AbortController();
  const records: PermissionRecord[] = [];
  const tools = servedTools(h.runtime, {
    shutdown: shutdown.signal,
    audit: (record) => Promise.resolve(void records.push(record)),
  });
  const call = tools.call("slow", {}, live());
  setTimeout(() => shutdown.abort(), 20);
  assert.deepEqual(await call, { content: "stopped early", ok: true });
  assert.deepEqual(trimmed(records).map((r) => r.outcome), ["cancelled"]);
});
