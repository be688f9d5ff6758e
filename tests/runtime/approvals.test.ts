import assert from "node:assert/strict";
import { echoTool, harness, readStored } from "../_support/engine.ts";
import type { Approval, ApprovalRequest, Approver } from "../../src/tool/approval.ts";
import { REFUSED_BY_USER } from "../../src/tool/refusal.ts";

/** An approver that answers from a list and records every question. */
function scripted(answers: Approval[]): { approver: Approver; asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approver: (request) => {
      asked.push(request);
      return Promise.resolve(answers.shift() ?? { answer: "deny", by: "policy" });
    },
  };
}

const shell = () => echoTool("shell", "bash");
const call = (text: string) => ({ name: "shell", arguments: { text } });

/** The audit records of a stored session without their time and call id. */
async function audit(h: Awaited<ReturnType<typeof harness>>, name: string) {
  const stored = await readStored(h, name);
  return stored.permissions.map(({ at: _a, call_id: _c, ...rest }: Record<string, unknown>) =>
    rest
  );
}

const asked = (reason = "bash category is ask") => ({
  tool: "shell",
  category: "bash",
  action: "ask",
  reason,
});

Deno.test("an approval once runs one call; the next identical call asks again", async () => {
  const { approver, asked: questions } = scripted([
    { answer: "once", by: "user" },
    { answer: "once", by: "user" },
  ]);
  await using h = await harness([
    { tool_calls: [call("ls"), call("ls")] },
    { text: "done" },
  ], { tools: [shell()], approver });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => [c.decision, c.ok]), [["ask", true], [
    "ask",
    true,
  ]]);
  assert.equal(questions.length, 2);
  assert.deepEqual(questions[0], {
    tool: "shell",
    category: "bash",
    args: { text: "ls" },
    reason: "bash category is ask",
    session: "t",
    id: "call_0",
  });
  assert.deepEqual(await audit(h, "t"), [
    { ...asked(), outcome: "approved", by: "user", scope: "once" },
    { ...asked(), outcome: "approved", by: "user", scope: "once" },
  ]);
});

Deno.test("an approval always is remembered for the session, for the same command only", async () => {
  const { approver, asked: questions } = scripted([
    { answer: "always", by: "user" },
    { answer: "deny", by: "user" },
  ]);
  await using h = await harness([
    { tool_calls: [call("npm test"), call("npm test"), call("rm -rf ~")] },
    { text: "done" },
  ], { tools: [shell()], approver });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => c.ok), [true, true, false]);
  assert.deepEqual(questions.map((q) => q.args.text), ["npm test", "rm -rf ~"]);
  assert.deepEqual(await audit(h, "t"), [
    { ...asked(), outcome: "approved", by: "user", scope: "always" },
    { ...asked(), outcome: "approved", by: "user", scope: "always", remembered: true },
    { ...asked(), outcome: "rejected", by: "user" },
  ]);
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, REFUSED_BY_USER);
});

Deno.test("a person's no reaches the model as a refusal by the user, not as [cancelled]", async () => {
  const { approver } = scripted([{ answer: "deny", by: "user" }]);
  await using h = await harness([{ tool_calls: [call("rm -rf build")] }, { text: "ok" }], {
    tools: [shell()],
    approver,
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(
    h.fake.requests[1].body.messages.at(-1).content,
    "[refused by the user] The user declined this tool call; do not repeat it unchanged.",
  );
  assert.equal(result.tool_calls[0].refusal, "shell refused by you (bash category is ask)");
});

Deno.test("a headless refusal names the tool, why it asked and how to allow it", async () => {
  await using h = await harness([
    { tool_calls: [call("ls"), { name: "writer", arguments: { text: "x" } }] },
    { text: "ok" },
  ], { tools: [shell(), echoTool("writer", "edit")] });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => [c.name, c.decision, c.refusal]), [
    [
      "shell",
      "ask",
      "shell not run: it needs approval (bash category is ask) and nobody could be asked " +
      '(a headless run asks no one); to allow it: svc run --yes, or "tool_permission": ' +
      '{"bash": "allow", "bash_allow": ["<command prefix>", ...]} in the config',
    ],
    [
      "writer",
      "ask",
      "writer not run: it needs approval (edit category is ask) and nobody could be asked " +
      '(a headless run asks no one); to allow it: svc run --yes, or "tool_permission": ' +
      '{"edit": "allow"} in the config',
    ],
  ]);
  // The model still gets [cancelled] (SPEC: headless asks are denied with it).
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, "[cancelled]");
});

Deno.test("an always answer lasts across turns of its session and never leaks to another", async () => {
  const { approver, asked: questions } = scripted([
    { answer: "always", by: "user" },
    { answer: "once", by: "user" },
  ]);
  await using h = await harness([
    { tool_calls: [call("make")] },
    { text: "one" },
    { tool_calls: [call("make")] },
    { text: "two" },
    { tool_calls: [call("make")] },
    { text: "three" },
  ], { tools: [shell()], approver });
  const first = h.store.create("first");
  await h.engine.runTurn("go", { session: first });
  await h.engine.runTurn("again", { session: first });
  await h.engine.runTurn("elsewhere", { session: h.store.create("second") });
  assert.equal(questions.length, 2);
  assert.deepEqual(questions.map((q) => q.session), ["first", "second"]);
  assert.deepEqual((await audit(h, "first")).map((r: Record<string, unknown>) => r.remembered), [
    undefined,
    true,
  ]);
});

Deno.test("a deny names its author: flag and lead reject, policy denies", async () => {
  for (
    const [by, outcome] of [["flag", "rejected"], ["lead", "rejected"], [
      "policy",
      "denied",
    ]] as const
  ) {
    const { approver } = scripted([{ answer: "deny", by }]);
    await using h = await harness([{ tool_calls: [call("ls")] }, { text: "ok" }], {
      tools: [shell()],
      approver,
    });
    await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.deepEqual(await audit(h, "t"), [{ ...asked(), outcome, by }]);
    assert.equal(h.fake.requests[1].body.messages.at(-1).content, "[cancelled]");
  }
});

Deno.test("an approver that throws counts as a deny by the policy", async () => {
  await using h = await harness([{ tool_calls: [call("ls")] }, { text: "ok" }], {
    tools: [shell()],
    approver: () => Promise.reject(new Error("terminal closed")),
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.status, "ok");
  assert.deepEqual(await audit(h, "t"), [{ ...asked(), outcome: "denied", by: "policy" }]);
});

Deno.test("allowed and denied calls never reach the approver", async () => {
  const { approver, asked: questions } = scripted([]);
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "x" } }, call("ls")] },
    { text: "ok" },
  ], {
    tools: [echoTool(), shell()],
    approver,
    config: { tool_permission: { bash: "deny" } },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(questions, []);
  const records = await audit(h, "t");
  // A denied tool is not offered: the model is told it is unknown, the audit says why.
  assert.deepEqual(
    records.map((r: Record<string, unknown>) => [r.action, r.outcome, r.by, r.reason]),
    [
      ["allow", "allowed", "policy", "read category is allow"],
      ["deny", "denied", "policy", "not offered: bash category is deny"],
    ],
  );
});
