/**
 * The hook events outside a turn's tool calls, as real bash scripts: PreCompact (manual, and a
 * hook that blocks it), SessionStart and SessionEnd of `svc serve`'s /chat sessions and of a
 * job's runs, and PreToolUse / PostToolUse on the tools MCP clients call through `svc mcp` and
 * `svc serve` (the served path).
 */
import assert from "node:assert/strict";
import { harness } from "../_support/engine.ts";
import { app } from "../http/_app.ts";
import { world } from "../jobs/_world.ts";
import { servedTools } from "../../src/runtime/served_tools.ts";
import type { PermissionRecord } from "../../src/shared/types.ts";

/** A hook command that appends its stdin (one JSON object) as a line of `log`. */
const logTo = (log: string) => `cat >> '${log}'; echo >> '${log}'`;

/** The JSON lines a logging hook wrote. */
async function logged(log: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(log).catch(() => "");
  return text.trim() ? text.trim().split("\n").map((line) => JSON.parse(line)) : [];
}

function hook(matcher: string, command: string) {
  return [{ matcher, hooks: [{ type: "command", command }] }];
}

Deno.test("PreCompact runs before a manual compaction with trigger manual; an auto matcher does not match", async () => {
  const log = await Deno.makeTempFile();
  const other = await Deno.makeTempFile();
  await using h = await harness([{ text: "one" }, { text: "two" }, { text: "SUMMARY" }], {
    config: {
      compact_keep: 1,
      hooks: { PreCompact: [...hook("manual", logTo(log)), ...hook("auto", logTo(other))] },
    },
  });
  const session = h.store.create("c");
  await h.engine.runTurn("first", { session });
  await h.engine.runTurn("second", { session });
  const result = await h.engine.compact(session);
  assert.equal(result.ok, true);
  const [input] = await logged(log);
  assert.equal(input.hook_event_name, "PreCompact");
  assert.equal(input.trigger, "manual");
  assert.equal(input.custom_instructions, "");
  assert.equal(input.session_id, "c");
  assert.equal(input.transcript_path, `${h.worktree}/.svc/sessions/c.json`);
  assert.deepEqual(await logged(other), []);
  await Deno.remove(log);
  await Deno.remove(other);
});

Deno.test("a PreCompact hook that exits 2 blocks the compaction with its reason", async () => {
  await using h = await harness([{ text: "one" }, { text: "two" }], {
    config: {
      compact_keep: 1,
      hooks: { PreCompact: hook("", "echo 'not now: saving state' >&2; exit 2") },
    },
  });
  const session = h.store.create("c");
  await h.engine.runTurn("first", { session });
  await h.engine.runTurn("second", { session });
  const before = session.data.messages.length;
  const result = await h.engine.compact(session);
  assert.deepEqual(result, {
    ok: false,
    message: "blocked by a PreCompact hook: not now: saving state",
  });
  assert.equal(session.data.messages.length, before);
  // No summary was asked of the model.
  assert.equal(h.fake.requests.length, 2);
});

Deno.test("POST /chat runs SessionStart (startup, then resume for its session_id) and SessionEnd around each turn", async () => {
  const log = await Deno.makeTempFile();
  await using served = await app([{ text: "hello" }, { text: "again" }], {
    mcp: false,
    config: {
      hooks: {
        SessionStart: hook("startup|resume", logTo(log)),
        SessionEnd: hook("", logTo(log)),
      },
    },
  });
  const first = await served.call("POST", "/chat", { json: { prompt: "hi" } });
  assert.equal(first.status, 200);
  const { session } = await first.json();
  const second = await served.call("POST", "/chat", {
    json: { prompt: "more", session_id: session },
  });
  assert.equal(second.status, 200);
  const events = await logged(log);
  assert.deepEqual(
    events.map((e) => [e.hook_event_name, e.source ?? e.reason, e.session_id]),
    [
      ["SessionStart", "startup", session],
      ["SessionEnd", "other", session],
      ["SessionStart", "resume", session],
      ["SessionEnd", "other", session],
    ],
  );
  await Deno.remove(log);
});

Deno.test("SessionStart's output reaches the model in a /chat turn", async () => {
  await using served = await app([{ text: "ok" }], {
    mcp: false,
    config: { hooks: { SessionStart: hook("", "echo 'the build is red'") } },
  });
  const res = await served.call("POST", "/chat", { json: { prompt: "status?" } });
  assert.equal(res.status, 200);
  const messages = served.fake.requests[0].body.messages;
  assert.ok(
    messages.some((m: { content: string }) => String(m.content).includes("the build is red")),
  );
});

Deno.test("a job's run is one session use: SessionStart startup then resume for its named session, SessionEnd after the attempts", async () => {
  await using w = await world();
  const log = `${w.home}/hooks.log`;
  const configPath = `${w.home}/.config/svc/config.json`;
  const config = JSON.parse(await Deno.readTextFile(configPath));
  config.hooks = { SessionStart: hook("", logTo(log)), SessionEnd: hook("", logTo(log)) };
  await Deno.writeTextFile(configPath, JSON.stringify(config));
  await w.add("nightly", { schedule: null, session: "nightly-log" });
  const first = await w.run("nightly");
  assert.ok(!("refused" in first) && first.state === "verified", JSON.stringify(first));
  await w.run("nightly");
  const events = await logged(log);
  assert.deepEqual(
    events.map((e) => [e.hook_event_name, e.source ?? e.reason, e.session_id]),
    [
      ["SessionStart", "startup", "nightly-log"],
      ["SessionEnd", "other", "nightly-log"],
      ["SessionStart", "resume", "nightly-log"],
      ["SessionEnd", "other", "nightly-log"],
    ],
  );
});

Deno.test("tools called by MCP clients (the served path) run the PreToolUse and PostToolUse hooks", async () => {
  const log = await Deno.makeTempFile();
  await using h = await harness([], {
    config: {
      hooks: {
        PreToolUse: [
          ...hook("echo", logTo(log)),
          ...hook(
            "echo",
            `if grep -q secret; then echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse",` +
              `"permissionDecision":"deny","permissionDecisionReason":"no secrets"}}'; fi`,
          ),
        ],
        PostToolUse: hook("echo", "echo 'checked by the post hook' >&2; exit 2"),
      },
    },
  });
  const records: PermissionRecord[] = [];
  const tools = servedTools(h.runtime, {
    audit: (record) => {
      records.push(record);
      return Promise.resolve();
    },
  });
  const signal = new AbortController().signal;
  const allowed = await tools.call("echo", { text: "hello" }, signal);
  assert.equal(allowed.ok, true);
  assert.equal(
    allowed.content,
    'echo: {"text":"hello"}\n\n[PostToolUse hook]\nchecked by the post hook',
  );
  const denied = await tools.call("echo", { text: "a secret" }, signal);
  assert.equal(denied.ok, false);
  assert.equal(denied.content, "Error: blocked by a PreToolUse hook: no secrets");
  assert.deepEqual(
    records.map((r) => [r.outcome, r.by]),
    [["allowed", "policy"], ["rejected", "approver"]],
  );
  const [input] = await logged(log);
  assert.equal(input.hook_event_name, "PreToolUse");
  assert.equal(input.session_id, "mcp");
  assert.equal(input.tool_name, "echo");
  assert.deepEqual(input.tool_input, { text: "hello" });
  await Deno.remove(log);
});
