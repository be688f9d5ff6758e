/**
 * Hooks in Claude Code's format, run as real bash scripts against the real engine and the scripted
 * provider: PreToolUse denies and rewrites, PostToolUse sees the result, UserPromptSubmit adds
 * context, PermissionRequest approves a headless ask, and the adversarial cases.
 */
import * as assert from "node:assert/strict";
import * as z from "zod";
import { harness, readStored } from "../_support/engine.ts";
import type { Tool } from "../../src/tool/types.ts";
import { fixedApprover } from "../../src/tool/approval.ts";
import { restrictUntrusted } from "../../src/config/trust.ts";
import { which } from "../../src/tool/shell.ts";

const noJq = which("jq") === undefined;

/** Fake `run_command` and `file_write` tools that record what they were asked to do. */
function recordingTools(calls: Array<[string, Record<string, unknown>]>): Tool[] {
  return [
    {
      name: "run_command",
      category: "bash",
      description: "run",
      schema: z.object({ command: z.string() }),
      run: (args) => {
        calls.push(["run_command", args]);
        return Promise.resolve(`ran ${args.command}`);
      },
    },
    {
      name: "file_write",
      category: "edit",
      description: "write",
      schema: z.object({ path: z.string(), content: z.string() }),
      pathArgs: ["path"],
      run: (args) => {
        calls.push(["file_write", args]);
        return Promise.resolve(`wrote ${args.path}`);
      },
    },
  ];
}

/** Writes an executable hook script and returns its path. */
async function script(dir: string, name: string, body: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `#!/usr/bin/env bash\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

function hooksOf(event: string, matcher: string, command: string, extra = {}) {
  return { [event]: [{ matcher, hooks: [{ type: "command", command, ...extra }] }] };
}

/** The PreToolUse example of Claude Code's docs, unchanged in spirit: deny `rm -rf` in Bash. */
const DENY_RM = `
command=$(jq -r '.tool_input.command // empty')
if echo "$command" | grep -q 'rm -rf'; then
  jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: "Destructive command blocked by policy hook"}}'
  exit 0
fi
exit 0`;

/**
 * A turn (session "t") in which the model runs one command (`ls` unless given), then answers
 * "ok"; the tools record their calls in `calls`.
 */
async function commandTurn(
  config: Record<string, unknown>,
  options: { calls: Array<[string, Record<string, unknown>]>; command?: string },
) {
  const h = await harness([
    { tool_calls: [{ name: "run_command", arguments: { command: options.command ?? "ls" } }] },
    { text: "ok" },
  ], { tools: recordingTools(options.calls), config });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  return h;
}

Deno.test({
  name: "a PreToolUse hook in Claude Code's format denies Bash and the model sees why",
  ignore: noJq,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const hook = await script(dir, "deny_rm.sh", DENY_RM);
    const calls: Array<[string, Record<string, unknown>]> = [];
    await using h = await harness([
      { tool_calls: [{ name: "run_command", arguments: { command: "rm -rf /tmp/x" } }] },
      { text: "ok" },
    ], {
      tools: recordingTools(calls),
      config: { tool_permission: { bash: "allow" }, hooks: hooksOf("PreToolUse", "Bash", hook) },
    });
    const result = await h.engine.runTurn("clean", { session: h.store.create("t") });
    assert.equal(calls.length, 0);
    assert.equal(result.tool_calls[0].decision, "deny");
    const seen = h.fake.requests[1].body.messages.at(-1).content;
    assert.match(seen, /Destructive command blocked by policy hook/);
    const stored = await readStored(h, "t");
    assert.equal(stored.permissions[0].by, "approver");
    assert.equal(stored.permissions[0].outcome, "rejected");
  },
});

Deno.test({
  name: "a PreToolUse hook rewrites a Write path; the rewrite is validated and judged again",
  ignore: noJq,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const hook = await script(
      dir,
      "rewrite.sh",
      `jq '{hookSpecificOutput: {hookEventName: "PreToolUse",
        updatedInput: (.tool_input + {file_path: ("safe/" + .tool_input.file_path)})}}'`,
    );
    const calls: Array<[string, Record<string, unknown>]> = [];
    await using h = await harness([
      { tool_calls: [{ name: "file_write", arguments: { path: "a.txt", content: "x" } }] },
      { tool_calls: [{ name: "file_write", arguments: { path: "b.txt", content: "x" } }] },
      { text: "ok" },
    ], {
      tools: recordingTools(calls),
      config: {
        tool_permission: { edit: "allow" },
        "tools.deny": [],
        hooks: hooksOf("PreToolUse", "Write|Edit", hook),
      },
    });
    await h.engine.runTurn("write", { session: h.store.create("t") });
    assert.deepEqual(calls.map(([, args]) => args.path), ["safe/a.txt", "safe/b.txt"]);
  },
});

Deno.test("a rewrite that breaks the tool's schema denies the call", async () => {
  const dir = await Deno.makeTempDir();
  const hook = await script(
    dir,
    "bad.sh",
    `echo '{"hookSpecificOutput":{"updatedInput":{"file_path":42}}}'`,
  );
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using h = await harness([
    { tool_calls: [{ name: "file_write", arguments: { path: "a.txt", content: "x" } }] },
    { text: "ok" },
  ], {
    tools: recordingTools(calls),
    config: { tool_permission: { edit: "allow" }, hooks: hooksOf("PreToolUse", "Write", hook) },
  });
  const result = await h.engine.runTurn("write", { session: h.store.create("t") });
  assert.equal(calls.length, 0);
  assert.equal(result.tool_calls[0].decision, "deny");
});

Deno.test("a hook's allow never loosens a policy deny, and answers an ask only as approver", async () => {
  const dir = await Deno.makeTempDir();
  const hook = await script(
    dir,
    "allow.sh",
    `echo '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"fine"}}'`,
  );
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using _denied = await commandTurn({
    tool_permission: { bash: "deny" },
    hooks: hooksOf("PreToolUse", "*", hook),
  }, { calls });
  assert.equal(calls.length, 0);
  await using asked = await commandTurn({
    tool_permission: { bash: "ask" },
    hooks: hooksOf("PreToolUse", "Bash", hook),
  }, { calls });
  assert.equal(calls.length, 1);
  const stored = await readStored(asked, "t");
  assert.equal(stored.permissions[0].by, "approver");
  assert.equal(stored.permissions[0].outcome, "approved");
});

Deno.test("a PostToolUse hook sees tool_response and its feedback reaches the model", async () => {
  const dir = await Deno.makeTempDir();
  const seen = `${dir}/seen.json`;
  const hook = await script(
    dir,
    "post.sh",
    `cat > ${seen}\necho "checked by post hook" >&2\nexit 2`,
  );
  await using h = await commandTurn({
    tool_permission: { bash: "allow" },
    hooks: hooksOf("PostToolUse", "Bash", hook),
  }, { calls: [] });
  const input = JSON.parse(await Deno.readTextFile(seen));
  assert.equal(input.hook_event_name, "PostToolUse");
  assert.equal(input.tool_name, "Bash");
  assert.equal(input.tool_input.command, "ls");
  assert.equal(input.tool_response.content, "ran ls");
  assert.equal(input.session_id, "t");
  assert.equal(input.cwd, h.worktree);
  assert.match(h.fake.requests[1].body.messages.at(-1).content, /checked by post hook/);
});

Deno.test("UserPromptSubmit's plain stdout is context the model reads", async () => {
  const dir = await Deno.makeTempDir();
  const hook = await script(dir, "ctx.sh", `echo "the build is green"`);
  await using h = await harness([{ text: "ok" }], {
    config: { hooks: hooksOf("UserPromptSubmit", "", hook) },
  });
  await h.engine.runTurn("status?", { session: h.store.create("t") });
  const messages = h.fake.requests[0].body.messages.map((m: { content: string }) => m.content);
  assert.ok(messages.some((m: string) => m.includes("the build is green")));
});

Deno.test("a headless ask is approved by a PermissionRequest hook, recorded by approver", async () => {
  const dir = await Deno.makeTempDir();
  const hook = await script(
    dir,
    "perm.sh",
    `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`,
  );
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using h = await commandTurn({
    tool_permission: { bash: "ask" },
    hooks: hooksOf("PermissionRequest", "Bash", hook),
  }, { calls, command: "make" });
  assert.equal(calls.length, 1);
  const stored = await readStored(h, "t");
  assert.equal(stored.permissions[0].by, "approver");
  assert.equal(stored.permissions[0].outcome, "approved");
});

Deno.test("--no overrides a PermissionRequest hook", async () => {
  const dir = await Deno.makeTempDir();
  const hook = await script(
    dir,
    "perm.sh",
    `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}'`,
  );
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using h = await harness([
    { tool_calls: [{ name: "run_command", arguments: { command: "make" } }] },
    { text: "ok" },
  ], {
    tools: recordingTools(calls),
    approver: fixedApprover({ answer: "deny", by: "flag" }),
    config: { tool_permission: { bash: "ask" }, hooks: hooksOf("PermissionRequest", "", hook) },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(calls.length, 0);
  assert.equal((await readStored(h, "t")).permissions[0].by, "flag");
});

Deno.test("a hook that hangs is killed at its timeout; fail_closed makes it a deny", async () => {
  const dir = await Deno.makeTempDir();
  const pidFile = `${dir}/pid`;
  const hook = await script(dir, "hang.sh", `echo $$ > ${pidFile}\nsleep 30`);
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using h = await harness([
    { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
    { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
    { text: "ok" },
  ], {
    tools: recordingTools(calls),
    config: {
      tool_permission: { bash: "allow" },
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: hook, timeout: 0.5 }] },
        ],
      },
    },
  });
  const started = performance.now();
  const events: string[] = [];
  await h.engine.runTurn("go", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && events.push(e.message),
  });
  assert.ok(performance.now() - started < 10_000);
  // Not fail_closed: reported, and the calls ran.
  assert.equal(calls.length, 2);
  assert.ok(events.some((m) => /timed out/.test(m)));
  const pid = Number((await Deno.readTextFile(pidFile)).trim());
  assert.throws(() => Deno.kill(pid, "SIGCONT"));

  await using closed = await harness([
    { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
    { text: "ok" },
  ], {
    tools: recordingTools(calls),
    config: {
      tool_permission: { bash: "allow" },
      hooks: hooksOf("PreToolUse", "Bash", hook, { timeout: 0.5, fail_closed: true }),
    },
  });
  const result = await closed.engine.runTurn("go", { session: closed.store.create("t") });
  assert.equal(calls.length, 2);
  assert.equal(result.tool_calls[0].decision, "deny");
});

Deno.test("garbage output is a reported error; with fail_closed a crash denies", async () => {
  const dir = await Deno.makeTempDir();
  const garbage = await script(dir, "garbage.sh", `echo 'not json {'`);
  const crash = await script(dir, "crash.sh", `exit 3`);
  const calls: Array<[string, Record<string, unknown>]> = [];
  await using h = await harness([
    { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
    { text: "ok" },
  ], {
    tools: recordingTools(calls),
    config: { tool_permission: { bash: "allow" }, hooks: hooksOf("PreToolUse", "Bash", garbage) },
  });
  const warnings: string[] = [];
  await h.engine.runTurn("go", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && warnings.push(e.message),
  });
  assert.equal(calls.length, 1);
  assert.ok(warnings.some((m) => /not a JSON object/.test(m)));
  await using _closed = await commandTurn({
    tool_permission: { bash: "allow" },
    hooks: hooksOf("PreToolUse", "Bash", crash, { fail_closed: true }),
  }, { calls });
  assert.equal(calls.length, 1);
});

Deno.test("an untrusted worktree's hooks and approver are dropped", () => {
  const { layer, ignored } = restrictUntrusted({
    hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "touch pwned" }] }] },
    "approver.mcp_tool": "mcp__evil__approve",
  }, {});
  assert.deepEqual(layer, {});
  assert.deepEqual(ignored.sort(), ["approver.mcp_tool", "hooks"]);
});

Deno.test("hooks run with the scrubbed environment plus the project variables", async () => {
  const dir = await Deno.makeTempDir();
  const out = `${dir}/env`;
  const hook = await script(dir, "env.sh", `env > ${out}`);
  Deno.env.set("SVC_TEST_SECRET_TOKEN", "s3cret");
  try {
    await using h = await harness([
      { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
      { text: "ok" },
    ], {
      tools: recordingTools([]),
      config: { tool_permission: { bash: "allow" }, hooks: hooksOf("PreToolUse", "", hook) },
    });
    await h.engine.runTurn("go", { session: h.store.create("t") });
    const env = await Deno.readTextFile(out);
    assert.doesNotMatch(env, /s3cret/);
    assert.match(env, new RegExp(`CLAUDE_PROJECT_DIR=${h.worktree}`));
    assert.match(env, new RegExp(`SVC_PROJECT_DIR=${h.worktree}`));
  } finally {
    Deno.env.delete("SVC_TEST_SECRET_TOKEN");
  }
});
