/**
 * The permission-prompt MCP tool (docs/hooks.md, the headless approver) against a real stdio
 * server on the official SDK (approve_server.ts): it approves, rewrites and denies headless
 * ask-gated calls, recorded `by: "approver"`; one it never answers and one it answers with
 * garbage are denied with the reason in the tool result and the audit. Then the same through
 * `svc run --permission-prompt-tool`, the server in the global config with autoconnect.
 */
import assert from "node:assert/strict";
import * as z from "zod";
import { harness, readStored } from "../../../tests/_support/engine.ts";
import { sandbox, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { loadPlugins } from "../../../src/plugin/load.ts";
import type { Tool } from "../../../src/tool/types.ts";
import { clientsFor } from "../src/client/clients.ts";
import { fixture } from "./_servers.ts";

/** A fake `run_command` that records the commands it was asked to run. */
function recordingBash(ran: string[]): Tool {
  return {
    name: "run_command",
    category: "bash",
    description: "run",
    schema: z.object({ command: z.string() }),
    run: (args) => {
      ran.push(String(args.command));
      return Promise.resolve(`ran ${args.command}`);
    },
  };
}

const bash = (command: string) => ({
  tool_calls: [{ name: "run_command", arguments: { command } }],
});

Deno.test("a permission-prompt MCP tool approves, rewrites and denies headless asks; silence and garbage deny", async () => {
  const log = await Deno.makeTempFile();
  const scratch = await Deno.makeTempDir({ prefix: "svc-approver-plugins-" });
  const plugins = await loadPlugins({
    names: ["svc-core-mcp"],
    trustLocal: false,
    worktree: scratch,
  });
  const ran: string[] = [];
  await using h = await harness([
    bash("echo fine"),
    bash("echo rewrite me"),
    bash("echo deny me"),
    bash("echo slow one"),
    bash("echo garbage please"),
    { text: "done" },
  ], {
    plugins,
    tools: [recordingBash(ran)],
    config: {
      tool_permission: { bash: "ask" },
      approval_timeout: 1.5,
      "mcp.servers": [fixture("ap", "approve_server.ts", [log], { autoconnect: true })],
    },
    engine: { headless: true, permissionPromptTool: "ap.approve" },
  });
  try {
    const result = await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.equal(result.status, "ok");
    assert.deepEqual(ran, ["echo fine", "touch rewritten"]);

    const tools = (await readStored(h, "t")).messages.filter((m: { role: string }) =>
      m.role === "tool"
    );
    assert.equal(tools[0].content, "ran echo fine");
    assert.equal(tools[1].content, "ran touch rewritten");
    assert.equal(tools[2].content, "Denied by the approver: not on my watch: echo deny me");
    assert.equal(
      tools[3].content,
      "Denied by the approver: no answer within approval_timeout (1.5 s)",
    );
    assert.equal(
      tools[4].content,
      "Denied by the approver: the permission-prompt tool ap.approve answered something that " +
        "is not JSON",
    );
    // The model read each denial as its tool result.
    assert.match(h.fake.requests[3].body.messages.at(-1).content, /not on my watch/);

    const permissions = (await readStored(h, "t")).permissions;
    assert.deepEqual(
      permissions.map((p: Record<string, unknown>) => [p.outcome, p.by]),
      [
        ["approved", "approver"],
        ["approved", "approver"],
        ["rejected", "approver"],
        ["rejected", "approver"],
        ["rejected", "approver"],
      ],
    );
    assert.match(permissions[3].reason, /; approver: .*no answer within approval_timeout/);
    assert.match(permissions[4].reason, /; approver: .*is not JSON/);

    // The tool got {tool_name, input, tool_use_id} in the convention's names.
    const asked = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(asked.length, 5);
    assert.deepEqual(Object.keys(asked[0]).sort(), ["input", "tool_name", "tool_use_id"]);
    assert.equal(asked[0].tool_name, "Bash");
    assert.deepEqual(asked[0].input, { command: "echo fine" });
    assert.equal(asked[0].tool_use_id, result.tool_calls[0].id);
  } finally {
    await clientsFor(h.runtime.added.host("svc-core-mcp"), h.worktree).closeAll();
    await Deno.remove(scratch, { recursive: true });
    await Deno.remove(log);
  }
});

Deno.test("svc run --permission-prompt-tool approves, denies and times out headless asks through an autoconnected server", async () => {
  await using box = await sandbox();
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({
      tool_permission: { bash: "ask" },
      approval_timeout: 2,
      "mcp.servers": [fixture("ap", "approve_server.ts", [], { autoconnect: true })],
    }),
  );
  const fake = await startFakeProvider([
    bash("touch approved"),
    bash("touch deny-me"),
    bash("touch slow-one"),
    { text: "done" },
  ]);
  const out = await svc([
    "run",
    "--base-url",
    fake.url,
    "--model",
    "m",
    "--permission-prompt-tool",
    "ap.approve",
    "--output",
    "json",
    "-p",
    "touch files",
  ], { cwd: box.worktree, env: box.env });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  const exists = (name: string) =>
    Deno.stat(`${box.worktree}/${name}`).then(() => true, () => false);
  assert.equal(await exists("approved"), true);
  assert.equal(await exists("deny-me"), false);
  assert.equal(await exists("slow-one"), false);

  // The model saw the denial's message as the tool result.
  assert.equal(
    fake.requests[2].body.messages.at(-1).content,
    "Denied by the approver: not on my watch: touch deny-me",
  );
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  const records = stored.permissions.map((
    { at: _at, call_id: _id, ...rest }: Record<string, unknown>,
  ) => rest);
  assert.deepEqual(records[0], {
    tool: "run_command",
    category: "bash",
    action: "ask",
    reason: "bash category is ask",
    outcome: "approved",
    by: "approver",
    scope: "once",
  });
  assert.equal(records[1].outcome, "rejected");
  assert.equal(records[1].by, "approver");
  assert.equal(
    records[1].reason,
    "bash category is ask; approver: Denied by the approver: not on my watch: touch deny-me",
  );
  assert.equal(records[2].outcome, "rejected");
  assert.equal(records[2].by, "approver");
  assert.equal(
    records[2].reason,
    "bash category is ask; approver: Denied by the approver: no answer within approval_timeout " +
      "(2 s)",
  );
});
