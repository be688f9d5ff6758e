import assert from "node:assert/strict";
import { decide, DEFAULT_ACTIONS, type PolicyInput } from "../../src/policy/evaluate.ts";

const base: PolicyInput = {
  tool: "file_read",
  category: "read",
  permissions: {},
  toolsAllow: [],
  toolsDeny: [],
};

const cases: Array<[string, Partial<PolicyInput>, string]> = [
  ["read defaults to allow", {}, "allow"],
  ["bash defaults to ask", { tool: "run_command", category: "bash" }, "ask"],
  ["mcp defaults to ask", { tool: "srv.x", category: "mcp" }, "ask"],
  ["delegate defaults to allow", { tool: "delegate", category: "delegate" }, "allow"],
  ["ask defaults to allow", { tool: "ask", category: "ask" }, "allow"],
  ["a category action overrides the default", { permissions: { read: "deny" } }, "deny"],
  ["tools.deny beats a category allow", { toolsDeny: ["file_read"] }, "deny"],
  ["tools.allow whitelists: other tools are denied", { toolsAllow: ["grep"] }, "deny"],
  ["tools.allow keeps the category action for listed tools", {
    toolsAllow: ["run_command"],
    tool: "run_command",
    category: "bash",
  }, "ask"],
  ["tools.deny beats tools.allow", { toolsAllow: ["file_read"], toolsDeny: ["file_read"] }, "deny"],
  ["plan mode denies edit", { mode: "plan", tool: "file_write", category: "edit" }, "deny"],
  ["plan mode denies bash even when allowed", {
    mode: "plan",
    tool: "run_command",
    category: "bash",
    permissions: { bash: "allow" },
  }, "deny"],
  ["plan mode keeps read", { mode: "plan" }, "allow"],
  ["outside the worktree escalates allow to ask", { outsideWorktree: true }, "ask"],
  ["outside the worktree keeps deny", {
    outsideWorktree: true,
    permissions: { read: "deny" },
  }, "deny"],
  ["an edit of control files escalates allow to ask", {
    tool: "file_write",
    category: "edit",
    permissions: { edit: "allow" },
    controlFiles: true,
  }, "ask"],
  ["an edit of control files keeps deny", {
    tool: "file_write",
    category: "edit",
    permissions: { edit: "deny" },
    controlFiles: true,
  }, "deny"],
  ["a resolver tightens allow to ask (git_commit)", {
    tool: "git_commit",
    category: "edit",
    permissions: { edit: "allow" },
    resolved: "ask",
  }, "ask"],
  ["a resolver cannot loosen ask to allow", {
    tool: "run_command",
    category: "bash",
    resolved: "allow",
  }, "ask"],
  ["a resolver deny wins (bash_allow)", {
    tool: "run_command",
    category: "bash",
    permissions: { bash: "allow" },
    resolved: "deny",
  }, "deny"],
];

for (const [name, patch, expected] of cases) {
  Deno.test(`policy: ${name}`, () => {
    assert.equal(decide({ ...base, ...patch }).action, expected);
  });
}

Deno.test("policy: every category has a default action", () => {
  assert.deepEqual(Object.keys(DEFAULT_ACTIONS).sort(), [
    "ask",
    "bash",
    "delegate",
    "edit",
    "list",
    "mcp",
    "read",
    "web",
  ]);
});

Deno.test("policy: a resolver's reason joins the decision's reason only when it tightens", () => {
  const resolved = { action: "ask" as const, reason: "names a path outside the worktree: ../x" };
  assert.deepEqual(
    [
      decide({
        ...base,
        tool: "run_command",
        category: "bash",
        permissions: { bash: "allow" },
        resolved,
      }),
      decide({
        ...base,
        tool: "run_command",
        category: "bash",
        permissions: { bash: "deny" },
        resolved,
      }),
    ],
    [
      {
        action: "ask",
        reason: "run_command policy requires ask: names a path outside the worktree: ../x",
      },
      { action: "deny", reason: "bash category is deny" },
    ],
  );
});

const bash: PolicyInput = { ...base, tool: "run_command", category: "bash" };
const held = { holds: true };
const notHeld = { holds: false, why: "bubblewrap (bwrap) is not installed" };
const notListed = { action: "deny" as const, reason: "not in bash_allow: ls" };
const bomb = { action: "ask" as const, reason: "expands to many words", unlessSandboxed: true };

Deno.test("the sandboxed bash level runs every command without asking while the sandbox holds it", () => {
  const sandboxed = { ...bash, permissions: { bash: "sandboxed" as const }, sandbox: held };
  assert.deepEqual(decide(sandboxed), { action: "allow", reason: "bash category is sandboxed" });
  // Unlisted by bash_allow, or flagged as unbounded: the sandbox bounds it.
  assert.deepEqual(decide({ ...sandboxed, resolved: notListed }).action, "allow");
  assert.deepEqual(decide({ ...sandboxed, resolved: bomb }).action, "allow");
  // Names and plan mode still come first.
  assert.equal(decide({ ...sandboxed, toolsDeny: ["run_command"] }).action, "deny");
  assert.equal(decide({ ...sandboxed, mode: "plan" }).action, "deny");
});

Deno.test("the sandboxed bash level asks, saying why, where no sandbox holds the command", () => {
  const sandboxed = { ...bash, permissions: { bash: "sandboxed" as const }, sandbox: notHeld };
  assert.deepEqual(decide(sandboxed), {
    action: "ask",
    reason: "bash category is sandboxed, but no OS sandbox holds the command (bubblewrap " +
      "(bwrap) is not installed)",
  });
  assert.equal(decide({ ...sandboxed, resolved: notListed }).action, "deny");
  assert.equal(decide({ ...base, permissions: { bash: "sandboxed" } }).action, "allow");
});

Deno.test("a verdict marked unlessSandboxed asks only when the sandbox does not hold the call", () => {
  const allowed = { ...bash, permissions: { bash: "allow" as const }, resolved: bomb };
  assert.deepEqual(decide({ ...allowed, sandbox: notHeld }), {
    action: "ask",
    reason: "run_command policy requires ask: expands to many words",
  });
  assert.deepEqual(decide({ ...allowed, sandbox: held }), {
    action: "allow",
    reason: "bash category is allow",
  });
  // A plain ask (a path outside the worktree) holds even in the sandbox.
  const outside = { action: "ask" as const, reason: "names a path outside the worktree" };
  assert.equal(decide({ ...allowed, resolved: outside, sandbox: held }).action, "ask");
});
