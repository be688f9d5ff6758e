/**
 * The configured approver answers MCP servers' form questions (docs/mcp_client.md) in headless
 * runs, against a real stdio server on the official SDK (elicit_server.ts): an `Elicitation` hook
 * accepts with content the server receives, declines with exit code 2, and its answer with a
 * field the form lacks is declined; what the hook leaves undecided goes to the permission-prompt
 * tool, whose denial, out-of-list answer and smuggled field decline; every answer is audited
 * `by: "approver"`. Without an approver (and with an untrusted worktree's hook) svc declines.
 */
import assert from "node:assert/strict";
import { harness, readStored } from "../../../tests/_support/engine.ts";
import { sandbox, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { loadPlugins } from "../../../src/plugin/load.ts";
import { clientsFor } from "../src/client/clients.ts";
import { fixture } from "./_servers.ts";

const confirm = (message: string) => ({
  tool_calls: [{ name: "srv__confirm", arguments: { message } }],
});

/** Answers by the question's words; `pass` leaves it undecided. Logs each input to `log`. */
const hook = (log: string) => `
input=$(cat)
printf '%s\\n' "$input" >> ${log}
case "$input" in
  *pass*) exit 0 ;;
  *slow*) sleep 10 ;;
  *deny*) echo "no deletions on Fridays" >&2; exit 2 ;;
  *smuggle*) echo '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"color":"red","admin":true}}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"color":"green","force":true}}}' ;;
esac`;

/** The form elicit_server.ts sends. */
const FORM = {
  type: "object",
  properties: {
    branch: { type: "string", title: "Branch", default: "main" },
    force: { type: "boolean", title: "Force" },
    color: { type: "string", title: "Color", enum: ["red", "green"] },
  },
  required: ["branch", "color"],
};

const ACCEPTED = (content: Record<string, unknown>) =>
  `answer: ${JSON.stringify({ action: "accept", content })}`;
const DECLINED = `answer: {"action":"decline"}`;
const note = (message: string, what: string) =>
  `[MCP server srv asked ${JSON.stringify(message)}: ${what}]`;

Deno.test("an Elicitation hook, then the permission-prompt tool, answer a headless run's questions, checked against the form and audited", async () => {
  const hookLog = await Deno.makeTempFile();
  const toolLog = await Deno.makeTempFile();
  const scratch = await Deno.makeTempDir({ prefix: "svc-elicit-plugins-" });
  const plugins = await loadPlugins({
    names: ["svc-core-mcp"],
    trustLocal: false,
    worktree: scratch,
  });
  const asked = [
    "ok?",
    "please deny",
    "smuggle it",
    "pass",
    "pass deny",
    "pass bad",
    "pass smuggle",
    "slow",
  ];
  await using h = await harness([...asked.map(confirm), { text: "done" }], {
    plugins,
    config: {
      tool_permission: { mcp: "allow" },
      approval_timeout: 2,
      hooks: {
        Elicitation: [{ matcher: "srv", hooks: [{ type: "command", command: hook(hookLog) }] }],
      },
      "mcp.servers": [fixture("srv", "elicit_server.ts", [toolLog], { autoconnect: true })],
    },
    engine: { headless: true, permissionPromptTool: "srv.approve" },
  });
  try {
    const result = await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.equal(result.status, "ok");
    const stored = await readStored(h, "t");
    const tools = stored.messages.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    const hookBy = "the approver (Elicitation hook)";
    const toolBy = "the approver (approver.mcp_tool srv.approve";
    assert.deepEqual(tools, [
      // The hook's answer reaches the server; the missing required branch takes its default.
      `${ACCEPTED({ color: "green", force: true, branch: "main" })}\n` +
      note("ok?", `accepted (color, force, branch) by ${hookBy}`),
      `${DECLINED}\n` +
      note("please deny", "declined by the approver (Elicitation hook: no deletions on Fridays)"),
      `${DECLINED}\n` +
      note(
        "smuggle it",
        "declined by the approver (Elicitation hook: its answer does not fit the form: " +
          `"admin" is not a field of the form)`,
      ),
      `${ACCEPTED({ branch: "dev", color: "green", force: true })}\n` +
      note("pass", `accepted (branch, color, force) by ${toolBy})`),
      `${DECLINED}\n` + note("pass deny", `declined by ${toolBy}: not this one)`),
      `${DECLINED}\n` +
      note(
        "pass bad",
        `declined by ${toolBy}: its answer does not fit the form: "color": Pick one from the list)`,
      ),
      `${DECLINED}\n` +
      note(
        "pass smuggle",
        `declined by ${toolBy}: its answer does not fit the form: "admin" is not a field of the form)`,
      ),
      // approval_timeout bounds the approver: a hook too slow declines.
      `${DECLINED}\n` +
      note("slow", "declined by the approver (no answer within approval_timeout (2 s))"),
    ]);

    // Each answer is audited as the approver saw it, under the id of the call it came during.
    const audits = stored.permissions.filter((p: { tool: string }) =>
      p.tool === "mcp__srv__elicitation"
    );
    assert.deepEqual(
      audits.map((p: Record<string, unknown>) => [p.call_id, p.outcome, p.by, p.category]),
      result.tool_calls.map((call: { id: string }, i: number) => [
        call.id,
        [0, 3].includes(i) ? "approved" : "rejected",
        "approver",
        "mcp",
      ]),
    );
    assert.equal(
      audits[1].reason,
      `MCP server srv asked "please deny": declined by the approver (Elicitation hook: no ` +
        "deletions on Fridays)",
    );

    // The hook got Claude Code's Elicitation input.
    const hookInputs = (await Deno.readTextFile(hookLog)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(hookInputs.length, 8);
    const { session_id, transcript_path, cwd, ...rest } = hookInputs[0];
    assert.deepEqual([session_id, transcript_path, cwd], [
      "t",
      `${h.worktree}/.svc/sessions/t.json`,
      h.worktree,
    ]);
    assert.deepEqual(rest, {
      hook_event_name: "Elicitation",
      permission_mode: "default",
      mcp_server_name: "srv",
      message: "ok?",
      mode: "form",
      requested_schema: FORM,
    });
    // The tool was asked only what the hook left undecided, as mcp__srv__elicitation.
    const toolInputs = (await Deno.readTextFile(toolLog)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.deepEqual(toolInputs.map((i) => i.input.message), [
      "pass",
      "pass deny",
      "pass bad",
      "pass smuggle",
    ]);
    assert.deepEqual(toolInputs[0], {
      tool_name: "mcp__srv__elicitation",
      input: { message: "pass", requested_schema: FORM },
      tool_use_id: result.tool_calls[3].id,
    });
  } finally {
    await clientsFor(h.runtime.added.host("svc-core-mcp"), h.worktree).closeAll();
    await Deno.remove(scratch, { recursive: true });
    await Deno.remove(hookLog);
    await Deno.remove(toolLog);
  }
});

/** `svc run` in a worktree whose own config has an Elicitation hook that accepts (and logs). */
async function runWithWorktreeHook(trusted: boolean) {
  await using box = await sandbox({}, { trusted });
  const log = `${box.home}/hook.log`;
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({
      tool_permission: { mcp: "allow" },
      "mcp.servers": [fixture("srv", "elicit_server.ts", [], { autoconnect: true })],
    }),
  );
  await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({
      hooks: { Elicitation: [{ hooks: [{ type: "command", command: hook(log) }] }] },
    }),
  );
  const fake = await startFakeProvider([confirm("ok?"), { text: "done" }]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "-p", "confirm"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const hookRan = await Deno.stat(log).then(() => true, () => false);
  return { answer: fake.requests[1].body.messages.at(-1).content, hookRan };
}

Deno.test("svc run declines a question headless; an untrusted worktree's Elicitation hook is not consulted, a trusted one's is", async () => {
  assert.deepEqual(await runWithWorktreeHook(false), {
    answer: `${DECLINED}\n` +
      note("ok?", "declined by svc (no one to answer: this run is headless)"),
    hookRan: false,
  });
  assert.deepEqual(await runWithWorktreeHook(true), {
    answer: `${ACCEPTED({ color: "green", force: true, branch: "main" })}\n` +
      note("ok?", "accepted (color, force, branch) by the approver (Elicitation hook)"),
    hookRan: true,
  });
});
