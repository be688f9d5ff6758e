import assert from "node:assert/strict";
import { echoTool, harness, readStored } from "../_support/engine.ts";

Deno.test("tool calls of a round cut at the token cap are answered 'not run' and the turn ends truncated", async () => {
  const ran: string[] = [];
  const echo = echoTool();
  echo.run = (args) => {
    ran.push(String(args.text));
    return Promise.resolve("done");
  };
  await using h = await harness([
    {
      tool_calls: [
        { name: "echo", arguments: { text: "rm" }, id: "call_0" },
        { name: "echo", arguments: '{"text": "rm -rf bu', id: "call_1" },
      ],
      finish: "length",
    },
    { text: "never asked" },
  ], { tools: [echo], config: { max_tokens: 50 } });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(ran, []);
  assert.equal(h.fake.requests.length, 1);
  assert.equal(result.status, "truncated");
  assert.deepEqual(result.tool_calls.map((r) => [r.id, r.decision, r.ok]), [
    ["call_0", "deny", false],
    ["call_1", "deny", false],
  ]);
  const stored = await readStored(h, "t");
  const refusal = "Error: not run: the answer hit the token cap";
  assert.deepEqual(
    stored.messages.map((m: { role: string; content: string | null }) => [m.role, m.content]),
    [["user", "go"], ["assistant", ""], ["tool", refusal], ["tool", refusal]],
  );
  assert.deepEqual(
    stored.permissions.map((p: { outcome: string; reason: string }) => [p.outcome, p.reason]),
    [["denied", "the answer hit the token cap"], ["denied", "the answer hit the token cap"]],
  );
  assert.deepEqual(stored.errors.map((e: { code: string }) => e.code), ["max_tokens"]);
});
