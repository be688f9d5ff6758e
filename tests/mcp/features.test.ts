import assert from "node:assert/strict";
import { app, BASE } from "../http/_app.ts";
import { echoTool } from "../_support/engine.ts";
import { v2Http } from "./_clients.ts";
import { typePrompt } from "../../src/engine/sub_agent.ts";
import type { Tool } from "../../src/tool/types.ts";

const URL_MCP = `${BASE}/mcp`;

/** A tool that reports two activity lines (as run_command reports output) and answers. */
const chatty: Tool = {
  ...echoTool("chatty", "read"),
  run: (args, ctx) => {
    ctx.status("line one");
    ctx.status("line two");
    return Promise.resolve(`said ${args.text}`);
  },
};

/** Calls `chatty` and gathers the progress and log notifications that precede its result. */
async function callChatty(client: Awaited<ReturnType<typeof v2Http>>) {
  const logs: unknown[] = [];
  client.setNotificationHandler("notifications/message", (n) => {
    logs.push(n.params);
  });
  const progress: unknown[] = [];
  const result = await client.callTool({ name: "chatty", arguments: { text: "hi" } }, {
    onprogress: (p) => progress.push(p),
  });
  return { result, logs, progress };
}

Deno.test("a tool's activity lines reach a 2025-era client over POST /mcp as progress and log messages", async () => {
  await using a = await app([], { tools: [chatty] });
  const client = await v2Http(URL_MCP, "legacy", a.fetch);
  try {
    const { result, logs, progress } = await callChatty(client);
    assert.deepEqual(result.content, [{ type: "text", text: "said hi" }]);
    assert.deepEqual(progress, [
      { progress: 1, message: "line one" },
      { progress: 2, message: "line two" },
    ]);
    // Stateless HTTP keeps no level between requests: every message is sent.
    assert.deepEqual(logs, [
      { level: "info", data: "line one", logger: "chatty" },
      { level: "info", data: "line two", logger: "chatty" },
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("a 2026-07-28 client gets progress over POST /mcp, and log messages only when its request names a level", async () => {
  await using a = await app([], { tools: [chatty] });
  const client = await v2Http(URL_MCP, "auto", a.fetch);
  try {
    const { result, logs, progress } = await callChatty(client);
    assert.deepEqual(result.content, [{ type: "text", text: "said hi" }]);
    assert.deepEqual(progress, [
      { progress: 1, message: "line one" },
      { progress: 2, message: "line two" },
    ]);
    assert.deepEqual(logs, []);
  } finally {
    await client.close();
  }
});

Deno.test("a 2025-era request other than tools/call is answered as plain JSON though the client accepts SSE", async () => {
  await using a = await app([], { tools: [chatty] });
  const call = (accept: string) =>
    a.call("POST", "/mcp", {
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {},
      }),
    });
  const res = await call("application/json, text/event-stream");
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.deepEqual(body.result.tools.map((t: { name: string }) => t.name), ["chatty"]);
});

Deno.test("the catalogs are served as prompts, with completion of their entry names and of session names", async () => {
  await using a = await app([{ text: "stored" }], { tools: [chatty] });
  const chat = await a.call("POST", "/chat", { json: { prompt: "hi", session_id: "kept" } });
  await chat.body?.cancel();
  const catalog = await a.runtime.catalog();
  for (const era of ["auto", "legacy"] as const) {
    const client = await v2Http(URL_MCP, era, a.fetch);
    try {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => [p.name, p.arguments?.map((x) => x.name)]), [
        ["agent_type", ["type", "task"]],
        ["skill", ["name"]],
        ["team", ["team", "task"]],
      ], era);
      const got = await client.getPrompt({
        name: "agent_type",
        arguments: { type: "researcher", task: "find the config loader" },
      });
      const researcher = catalog.types.get("researcher")!;
      assert.deepEqual(got.messages, [{
        role: "user",
        content: {
          type: "text",
          text: `${typePrompt(researcher, catalog)}\n\n## Task\n\nfind the config loader`,
        },
      }]);
      await assert.rejects(
        client.getPrompt({ name: "team", arguments: { team: "nope", task: "x" } }),
        (err: Error) => /No team named "nope"; available: /.test(err.message),
      );
      const types = await client.complete({
        ref: { type: "ref/prompt", name: "agent_type" },
        argument: { name: "type", value: "re" },
      });
      const expected = [...catalog.types.keys()].filter((n) => n.startsWith("re")).sort();
      assert.ok(expected.length > 0);
      assert.deepEqual(types.completion.values, expected, era);
      const names = await client.complete({
        ref: { type: "ref/resource", uri: "svc://session/{name}" },
        argument: { name: "name", value: "ke" },
      });
      assert.deepEqual(names.completion.values, ["kept"], era);
    } finally {
      await client.close();
    }
  }
});

Deno.test("a 2026-07-28 client's subscriptions/listen stream on POST /mcp hears its session change", async () => {
  await using a = await app([], { tools: [chatty] });
  const session = await a.store.openOrCreate("kept");
  const note = (content: string) =>
    session.appendMessage({ role: "user", content, timestamp: "2026-01-01T00:00:00Z" });
  await note("first");
  const client = await v2Http(URL_MCP, "auto", a.fetch);
  const updated: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    updated.push(n.params.uri);
  });
  try {
    const subscription = await client.listen({ resourceSubscriptions: ["svc://session/kept"] });
    try {
      await note("second");
      for (const at = performance.now(); !updated.length && performance.now() - at < 3000;) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(updated, ["svc://session/kept"]);
    } finally {
      await subscription.close();
    }
  } finally {
    await client.close();
  }
});
