import assert from "node:assert/strict";
import { echoTool, harness, readStored } from "../_support/engine.ts";
import { MemorySession } from "../../src/session/memory.ts";

Deno.test("a derived engine runs in its own session with its own overrides", async () => {
  await using h = await harness([
    { text: "child answer" },
  ], {
    tools: [echoTool("reader", "read"), echoTool("writer", "edit"), echoTool("shell", "bash")],
    config: { system_prompt: "parent prompt", tool_permission: { edit: "allow" } },
  });
  const parentSession = h.store.create("parent");
  const childSession = h.store.create("sub_child", { parent_id: "parent" });
  const child = await h.engine.derive({
    system_prompt: "child prompt",
    tool_permission: { bash: "deny" },
    "tools.deny": ["writer"],
    session: childSession,
  });
  const result = await child.runTurn("task");
  assert.equal(result.session, "sub_child");
  assert.equal(result.content, "child answer");
  const sent = h.fake.requests[0].body;
  // The environment block (docs/prompt.md) ends the system prompt.
  assert.deepEqual(
    sent.messages.map((m: { content: string }) => m.content.split("\n\nEnvironment:\n")[0]),
    ["child prompt", "task"],
  );
  assert.deepEqual(sent.tools.map((t: { function: { name: string } }) => t.function.name), [
    "ask",
    "delegate",
    "reader",
  ]);
  assert.deepEqual(child.deps.config.tool_permission, { edit: "allow", bash: "deny" });
  assert.deepEqual(child.deps.config["tools.deny"], ["writer"]);
  // The parent keeps its own settings and its session is untouched.
  assert.deepEqual(h.engine.deps.config.tool_permission, { edit: "allow" });
  assert.deepEqual(parentSession.data.messages, []);
  const stored = await readStored(h, "sub_child");
  assert.equal(stored.parent_id, "parent");
  assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), ["user", "assistant"]);
});

Deno.test("a derived engine adds tools.deny to its parent's and never drops one", async () => {
  await using h = await harness([], {
    tools: [echoTool("a"), echoTool("b"), echoTool("c")],
    config: { "tools.deny": ["a"] },
  });
  const child = await h.engine.derive({ "tools.deny": ["b"] });
  const grandchild = await child.derive({ "tools.deny": [] });
  assert.deepEqual(child.offeredTools().map((t) => t.name), ["ask", "delegate", "c"]);
  assert.deepEqual(grandchild.deps.config["tools.deny"], ["a", "b"]);
});

Deno.test("a derived engine's mode overrides its parent's; plan denies edit and bash", async () => {
  await using h = await harness([], {
    tools: [echoTool("reader", "read"), echoTool("writer", "edit"), echoTool("shell", "bash")],
  });
  const planner = await h.engine.derive({ mode: "plan" });
  const builder = await planner.derive({ mode: "build" });
  assert.deepEqual(planner.offeredTools().map((t) => t.name), ["ask", "delegate", "reader"]);
  assert.deepEqual(builder.offeredTools().map((t) => t.name), [
    "ask",
    "delegate",
    "reader",
    "writer",
    "shell",
  ]);
});

Deno.test("a derived engine with a type's model passes the approval gate only when approved", async () => {
  const home = await Deno.makeTempDir();
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await using h = await harness([{ text: "from the other model" }]);
    // The harness's fake provider stands in for a configured generic endpoint.
    const runtime = h.runtime as unknown as { config: Record<string, unknown> };
    runtime.config.base_url = h.fake.url;
    await assert.rejects(
      h.engine.derive({ model: "typed-model", modelFrom: "type" }),
      /model not approved: generic\/typed-model is named by an agent type or team/,
    );
    const child = await h.engine.derive({
      model: "typed-model",
      modelFrom: "type",
      approveModel: true,
      session: new MemorySession("sub"),
    });
    assert.equal(child.deps.model, "typed-model");
    await child.runTurn("go");
    assert.equal(h.fake.requests[0].body.model, "typed-model");
    const models = JSON.parse(await Deno.readTextFile(`${home}/.config/svc/models.json`));
    assert.deepEqual(
      models.map((m: { provider: string; model: string }) => [m.provider, m.model]),
      [
        ["generic", "typed-model"],
      ],
    );
  } finally {
    if (oldHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an engine built outside a runtime cannot derive", async () => {
  await using h = await harness([]);
  const { Engine } = await import("../../src/engine/engine.ts");
  const bare = new Engine(h.engine.deps);
  assert.throws(() => bare.derive({}), /not built by a runtime/);
});
