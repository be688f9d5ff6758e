import assert from "node:assert/strict";
import { echoTool, harness } from "../_support/engine.ts";
import { MemorySession } from "../../src/session/memory.ts";

Deno.test("a turn in a memory session keeps the whole log in memory and writes no file", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "hi" } }] },
    { text: "done" },
  ], { tools: [echoTool()], config: { noise_tools: ["echo"] } });
  const session = new MemorySession("trial");
  const result = await h.engine.runTurn("go", { session });
  assert.equal(result.status, "ok");
  assert.equal(result.session, "trial");
  assert.equal(session.path, null);
  assert.deepEqual(session.data.messages.map((m) => [m.role, m.content]), [
    ["user", "go"],
    ["assistant", ""],
    ["tool", "[echo result excluded from the session log (noise_tools); 19 characters]"],
    ["assistant", "done"],
  ]);
  // The model kept seeing the full result, as with a file session.
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, 'echo: {"text":"hi"}');
  assert.deepEqual(session.data.permissions.map((p) => p.outcome), ["allowed"]);
  assert.equal(await Deno.stat(`${h.worktree}/.svc`).then(() => true, () => false), false);
});

Deno.test("a memory session records errors, sub-sessions and renames", async () => {
  const session = new MemorySession("a", { parent_id: "lead" });
  await session.appendError({ code: "x", message: "boom" });
  await session.addSubSession("sub_1");
  await session.rename("b");
  await session.sync();
  const { created_at: _c, updated_at: _u, ...rest } = session.data;
  assert.deepEqual(rest, {
    name: "b",
    parent_id: "lead",
    messages: [],
    errors: [{ code: "x", message: "boom" }],
    permissions: [],
    sub_sessions: ["sub_1"],
  });
});
