// deno-lint-ignore-file no-explicit-any
/**
 * `svc acp` driven by the official SDK's own client side (`acp.client()`, the 2.x successor of
 * `ClientSideConnection`) over the process's stdio, against the scripted provider: one spawned
 * process per scenario.
 */
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { sandbox } from "../_support/cli.ts";
import { TEST_BUILD } from "../_support/builds.ts";
import { type Reply, startFakeProvider } from "../_support/fake_provider.ts";
import { seedSession } from "../_support/sessions.ts";
import { acpApp } from "../../src/acp/mod.ts";
import { DENO_DIR } from "../../plugins/svc-core-mcp/tests/_servers.ts";
import { sandboxState } from "../../src/sandbox/plan.ts";

/** What the editor side saw: updates per session, permission questions, file requests. */
interface Editor {
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  reads: string[];
  writes: acp.WriteTextFileRequest[];
}

/**
 * Spawns `svc acp` against `url` and runs `op` with a connected client that offers fs reads
 * (answered from `buffers`, else the disk) and writes (recorded, not written) when `fs` is set,
 * answers every permission question `answer`, and calls `onUpdate` for each update.
 */
async function withAgent<T>(
  box: { worktree: string; env: Record<string, string> },
  options: {
    url: string;
    buffers?: Record<string, string>;
    answer?: string;
    onUpdate?: (update: acp.SessionNotification, ctx: acp.ClientContext) => void;
  },
  op: (ctx: acp.ClientContext, editor: Editor) => Promise<T>,
): Promise<{ value: T; stderr: string; code: number }> {
  const child = new Deno.Command(TEST_BUILD.command, {
    args: [...TEST_BUILD.prefix, "acp", "--base-url", options.url, "--model", "m"],
    cwd: box.worktree,
    env: box.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const editor: Editor = { updates: [], permissions: [], reads: [], writes: [] };
  const app = acp.client({ name: "test-editor" })
    .onRequest("session/request_permission", ({ params }) => {
      editor.permissions.push(params);
      return { outcome: { outcome: "selected", optionId: options.answer ?? "allow_once" } };
    })
    .onRequest("fs/read_text_file", async ({ params }) => {
      editor.reads.push(params.path);
      return { content: options.buffers?.[params.path] ?? await Deno.readTextFile(params.path) };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      editor.writes.push(params);
      return {};
    })
    .onNotification("session/update", ({ params, agent }) => {
      editor.updates.push(params);
      options.onUpdate?.(params, agent);
    });
  const stream = acp.ndJsonStream(child.stdin, child.stdout);
  const value = await app.connectWith(stream, (ctx) => op(ctx, editor));
  await child.stdin.close().catch(() => {});
  const { code } = await child.status;
  return { value, stderr: await stderr, code };
}

const FS: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };

/** The text of the agent's message chunks among `updates`. */
function answerText(updates: acp.SessionNotification[]): string {
  return updates.map((n) => n.update).filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u: any) => u.content.text).join("");
}

const TURNS: Reply[] = [
  // Prompt 1: read a file, then run a command (ask-gated), then answer.
  { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" }, id: "call_read" }] },
  {
    tool_calls: [{ name: "run_command", arguments: { command: "touch made.txt" }, id: "call_run" }],
  },
  { text: "The word is PAPAYA; made.txt is made.", chunkSize: 6 },
  // Prompt 2: an edit, through the editor's fs/write_text_file.
  {
    tool_calls: [{
      name: "file_edit",
      arguments: { path: "notes.txt", old: "PAPAYA", new: "MANGO" },
      id: "call_edit",
    }],
  },
  { text: "Edited." },
  // Prompt 3: cancelled while it streams.
  { stall: true, text: "Thinking about it" },
];

Deno.test("svc acp answers initialize, runs a prompt with a read, an approved command and streamed chunks, routes an edit through the editor and cancels a turn", async () => {
  await using box = await sandbox({ "notes.txt": "The word is PAPAYA.\n" });
  const fake = await startFakeProvider(TURNS);
  let cancelled = false;
  const { value, code, stderr } = await withAgent(box, {
    url: fake.url,
    buffers: { [`${box.worktree}/notes.txt`]: "Unsaved: the word is PAPAYA.\n" },
    onUpdate: (n, ctx) => {
      const u = n.update as any;
      if (
        !cancelled && u.sessionUpdate === "agent_message_chunk" &&
        u.content.text.startsWith("Think")
      ) {
        cancelled = true;
        void ctx.notify("session/cancel", { sessionId: n.sessionId });
      }
    },
  }, async (ctx, editor) => {
    const init = await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: FS,
    });
    const created = await ctx.request("session/new", { cwd: box.worktree, mcpServers: [] });
    const sessionId = created.sessionId;
    const first = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Read notes.txt and make made.txt" }],
    });
    const firstUpdates = editor.updates.splice(0);
    const edit = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Change PAPAYA to MANGO" }],
    });
    const editUpdates = editor.updates.splice(0);
    const third = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Think" }],
    });
    editor.updates.splice(0);
    // The first session again, from its file: its turns replayed as updates before the answer.
    const loaded = await ctx.request("session/load", {
      sessionId,
      cwd: box.worktree,
      mcpServers: [],
    });
    const replayed = editor.updates.splice(0).filter((n) => n.sessionId === sessionId)
      .map((n) => n.update as any).filter((u) => u.sessionUpdate !== "available_commands_update");
    return {
      init,
      created,
      first,
      firstUpdates,
      edit,
      editUpdates,
      third,
      loaded,
      replayed,
      editor,
    };
  });
  await fake.close();
  assert.equal(code, 0, stderr);
  const { init, created, first, firstUpdates, edit, editUpdates, third, editor } = value;
  const { loaded, replayed } = value;
  assert.deepEqual(init.agentCapabilities, {
    loadSession: true,
    promptCapabilities: { image: false, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
    sessionCapabilities: { list: {} },
  });
  assert.deepEqual([init.protocolVersion, init.agentInfo?.name], [acp.PROTOCOL_VERSION, "svc"]);
  assert.match(created.sessionId, /^ses_\d{8}_\d{6}_acp(_\d+)?$/);
  assert.deepEqual(created.modes?.currentModeId, "build");
  // Prompt 1: the read went through the editor (its unsaved buffer), the command was asked about.
  assert.deepEqual(first, { stopReason: "end_turn" });
  assert.deepEqual(editor.reads.slice(0, 1), [`${box.worktree}/notes.txt`]);
  assert.deepEqual(editor.permissions.map((p) => [p.toolCall.toolCallId, p.toolCall.title]), [
    ["call_run", "Run touch made.txt"],
    ["call_edit", "Edit notes.txt"],
  ]);
  assert.deepEqual(editor.permissions[0].options.map((o) => o.kind), [
    "allow_once",
    "allow_always",
    "reject_once",
    "reject_always",
  ]);
  await Deno.stat(`${box.worktree}/made.txt`);
  const kinds = firstUpdates.map((n) => n.update).filter((u) =>
    u.sessionUpdate !== "agent_message_chunk"
  )
    .filter((u) => u.sessionUpdate !== "available_commands_update")
    .map((u: any) => [u.sessionUpdate, u.toolCallId, u.kind ?? null, u.status]);
  assert.deepEqual(kinds, [
    ["tool_call", "call_read", "read", "in_progress"],
    ["tool_call_update", "call_read", null, "completed"],
    ["tool_call", "call_run", "execute", "in_progress"],
    ["tool_call_update", "call_run", null, "completed"],
  ]);
  const read = firstUpdates.map((n) => n.update as any).find((u) => u.toolCallId === "call_read");
  assert.deepEqual(read.locations, [{ path: `${box.worktree}/notes.txt` }]);
  const readResult = firstUpdates.map((n) => n.update as any)
    .find((u) => u.toolCallId === "call_read" && u.sessionUpdate === "tool_call_update");
  assert.match(readResult.content[0].content.text, /Unsaved: the word is PAPAYA/);
  assert.equal(answerText(firstUpdates), "The word is PAPAYA; made.txt is made.");
  assert.equal(
    firstUpdates.filter((n) => n.update.sessionUpdate === "agent_message_chunk").length > 1,
    true,
  );
  // Prompt 2: the edit landed in the editor (not on disk) and its update carries the diff.
  assert.deepEqual(edit, { stopReason: "end_turn" });
  assert.deepEqual(editor.writes, [{
    sessionId: created.sessionId,
    path: `${box.worktree}/notes.txt`,
    content: "Unsaved: the word is MANGO.\n",
  }]);
  assert.equal(await Deno.readTextFile(`${box.worktree}/notes.txt`), "The word is PAPAYA.\n");
  const edited = editUpdates.map((n) => n.update as any)
    .find((u) => u.toolCallId === "call_edit" && u.sessionUpdate === "tool_call_update");
  assert.deepEqual(edited.content[0], {
    type: "diff",
    path: `${box.worktree}/notes.txt`,
    oldText: "Unsaved: the word is PAPAYA.\n",
    newText: "Unsaved: the word is MANGO.\n",
  });
  // Prompt 3: cancelled mid-stream.
  assert.deepEqual(third, { stopReason: "cancelled" });
  assert.equal(cancelled, true);
  // session/load: the stored turns come back as the updates they streamed.
  assert.deepEqual(loaded.modes?.currentModeId, "build");
  const replayedKinds = replayed.map((u) => [u.sessionUpdate, u.toolCallId ?? u.content?.text]);
  assert.deepEqual(replayedKinds.slice(0, 11), [
    ["user_message_chunk", "Read notes.txt and make made.txt"],
    ["tool_call", "call_read"],
    ["tool_call_update", "call_read"],
    ["tool_call", "call_run"],
    ["tool_call_update", "call_run"],
    ["agent_message_chunk", "The word is PAPAYA; made.txt is made."],
    ["user_message_chunk", "Change PAPAYA to MANGO"],
    ["tool_call", "call_edit"],
    ["tool_call_update", "call_edit"],
    ["agent_message_chunk", "Edited."],
    ["user_message_chunk", "Think"],
  ]);
  // The cancelled turn's partial answer, as much of it as had arrived (the engine saves none
  // when the cancel came before its first text was taken in).
  for (const [kind, text] of replayedKinds.slice(11)) {
    assert.equal(kind, "agent_message_chunk");
    assert.match(text, /^Thinking/);
  }
  assert.equal(replayedKinds.length <= 12, true);
});

/** Runs `fn` with HOME at `home` (Runtime.load reads the global config from it). */
async function withHome<T>(home: string, fn: () => Promise<T>): Promise<T> {
  const before = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    return await fn();
  } finally {
    if (before === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", before);
  }
}

Deno.test("an ACP session lists saved sessions, connects the editor's MCP server, attaches embedded resources, remembers reject always, denies edits in plan mode and switches model", async () => {
  await using box = await sandbox({ "notes.txt": "x\n" });
  await seedSession(box.worktree, { name: "ses_20260101_000000_old-work", turns: 1 });
  const touch = { name: "run_command", arguments: { command: "touch a.txt" } };
  const fake = await startFakeProvider([
    { tool_calls: [{ ...touch, id: "c1" }, { ...touch, id: "c2" }] },
    { text: "Not allowed." },
    { tool_calls: [{ name: "file_write", arguments: { path: "b.txt", content: "b" }, id: "c3" }] },
    { text: "Planned." },
    { text: "From the other model." },
  ]);
  const permissions: acp.RequestPermissionRequest[] = [];
  const updates: acp.SessionUpdate[] = [];
  const app = acp.client({ name: "test-editor" })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: "reject_always" } };
    })
    .onNotification("session/update", ({ params }) => void updates.push(params.update));
  const init = { baseUrl: fake.url, model: "m" };
  const agent = acpApp({ init, log: () => {}, cwd: box.worktree });
  const out = await withHome(box.home, () =>
    app.connectWith(agent, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
      const listed = await ctx.request("session/list", { cwd: box.worktree });
      // The editor's own MCP server (stdio), connected through svc's MCP client.
      const server = new URL("../../plugins/svc-core-mcp/tests/approve_server.ts", import.meta.url);
      const { sessionId } = await ctx.request("session/new", {
        cwd: box.worktree,
        mcpServers: [{
          name: "editor tools",
          command: Deno.execPath(),
          args: ["run", "-A", "--quiet", server.pathname],
          env: [{ name: "DENO_DIR", value: DENO_DIR }],
        }],
      });
      const denied = await ctx.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "Look at these" },
          { type: "resource_link", name: "notes.txt", uri: `file://${box.worktree}/notes.txt` },
          { type: "resource_link", name: "spec", uri: "https://example.com/spec" },
          {
            type: "resource",
            resource: { uri: `file://${box.worktree}/sel.ts`, text: "const a = 1;\n" },
          },
        ],
      });
      await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
      const planned = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Write b.txt" }],
      });
      const help = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "/help" }],
      });
      const model = await ctx.request("session/set_config_option", {
        sessionId,
        configId: "model",
        value: "other-model",
      });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Hi" }] });
      return { listed, denied, planned, help, model };
    }));
  await fake.close();
  assert.deepEqual(out.listed.sessions, [{
    sessionId: "ses_20260101_000000_old-work",
    cwd: box.worktree,
    title: "old work",
    updatedAt: out.listed.sessions[0]?.updatedAt,
  }]);
  // The attachments became the prompt as the REPL's @file ones do: a linked file read with
  // file_read, an embedded resource's own text; a link that is no file stays a mention.
  const firstPrompt = fake.requests.filter((r) => r.path === "/v1/chat/completions")[0].body
    .messages.findLast((m: any) => m.role === "user").content;
  assert.equal(
    firstPrompt,
    `Look at these\n\n[spec](https://example.com/spec)\n\n` +
      `<attachment file="${box.worktree}/notes.txt">\nnotes.txt: 1 line, 2 chars\n1\tx\n</attachment>\n\n` +
      `<attachment file="${box.worktree}/sel.ts">\nconst a = 1;\n</attachment>`,
  );
  const offered = fake.requests.filter((r) => r.path === "/v1/chat/completions")[0].body.tools
    .map((t: any) => t.function.name);
  assert.equal(offered.includes("editor-tools__approve"), true, offered.join(", "));
  // reject always: asked once, the identical second call denied without asking.
  assert.deepEqual(permissions.map((p) => p.toolCall.toolCallId), ["c1"]);
  assert.deepEqual([out.denied, out.planned], [{ stopReason: "end_turn" }, {
    stopReason: "end_turn",
  }]);
  const ends = updates.filter((u) => u.sessionUpdate === "tool_call_update")
    .map((u: any) => [u.toolCallId, u.status, u.rawOutput.decision]);
  assert.deepEqual(ends, [["c1", "failed", "ask"], ["c2", "failed", "ask"], [
    "c3",
    "failed",
    "deny",
  ]]);
  await assert.rejects(Deno.stat(`${box.worktree}/a.txt`), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(`${box.worktree}/b.txt`), Deno.errors.NotFound);
  const commands = updates.find((u) => u.sessionUpdate === "available_commands_update") as any;
  assert.deepEqual(commands.availableCommands.map((c: any) => c.name), [
    "compact",
    "mode",
    "model",
    "undo",
    "help",
  ]);
  assert.deepEqual(out.help, { stopReason: "end_turn" });
  assert.deepEqual((out.model.configOptions[0] as any).currentValue, "other-model");
  const lastRequest = fake.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)!;
  assert.equal(lastRequest.body.model, "other-model");
});

/** An editor that runs `terminal/create` commands itself and records what it was asked. */
function terminalEditor(worktree: string) {
  const created: acp.CreateTerminalRequest[] = [];
  const running = new Map<string, Promise<Deno.CommandOutput>>();
  const updates: acp.SessionUpdate[] = [];
  const text = (out: Deno.CommandOutput) =>
    new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const app = acp.client({ name: "terminal-editor" })
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }))
    .onRequest("terminal/create", ({ params }) => {
      created.push(params);
      const id = `term_${created.length}`;
      running.set(
        id,
        new Deno.Command(params.command, {
          args: params.args ?? [],
          cwd: params.cwd ?? worktree,
          stdout: "piped",
          stderr: "piped",
        }).output(),
      );
      return { terminalId: id };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => ({
      exitCode: (await running.get(params.terminalId)!).code,
    }))
    .onRequest("terminal/output", async ({ params }) => ({
      output: text(await running.get(params.terminalId)!),
      truncated: false,
    }))
    .onRequest("terminal/release", () => ({}))
    .onRequest("terminal/kill", () => ({}))
    .onNotification("session/update", ({ params }) => void updates.push(params.update));
  return { app, created, updates };
}

/** One prompt that runs `command` through `run_command` in a session of `box`'s worktree. */
async function runThroughEditor(
  box: { worktree: string; home: string },
  command: string,
): Promise<ReturnType<typeof terminalEditor> & { stop: acp.PromptResponse }> {
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "run_command", arguments: { command }, id: "t1" }] },
    { text: "Ran it." },
  ]);
  const editor = terminalEditor(box.worktree);
  const init = { baseUrl: fake.url, model: "m" };
  const agent = acpApp({ init, log: () => {}, cwd: box.worktree });
  const stop = await withHome(box.home, () =>
    editor.app.connectWith(agent, async (ctx) => {
      await ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { terminal: true },
      });
      const { sessionId } = await ctx.request("session/new", { cwd: box.worktree, mcpServers: [] });
      return await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Run it" }],
      });
    }));
  await fake.close();
  return { ...editor, stop };
}

Deno.test("a command svc would run without its OS sandbox runs in the editor's terminal, shown in the tool call", async () => {
  await using box = await sandbox({ "notes.txt": "x\n" });
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  const global = `${box.home}/.config/svc/config.json`;
  await Deno.writeTextFile(global, JSON.stringify({ "sandbox.mode": "danger-full-access" }));
  await Deno.chmod(global, 0o600);
  const out = await runThroughEditor(box, "echo from-terminal; echo to-stderr >&2; exit 3");
  assert.deepEqual(out.stop, { stopReason: "end_turn" });
  assert.deepEqual(out.created.map((c) => [c.args, c.cwd]), [
    [["-c", "echo from-terminal; echo to-stderr >&2; exit 3"], box.worktree],
  ]);
  // svc's secret variables are set empty in the editor's terminal, nothing else is set.
  assert.deepEqual(out.created[0].env?.filter((e) => e.value !== ""), []);
  const calls = out.updates.filter((u) => u.sessionUpdate === "tool_call_update") as any[];
  assert.deepEqual(calls.map((u) => u.content.map((c: any) => c.type)), [
    ["terminal"],
    ["terminal", "content"],
  ]);
  assert.equal(calls[1].content[0].terminalId, "term_1");
  assert.equal(calls[1].content[1].content.text, "exit code 3\nstdout:\nfrom-terminal\nto-stderr");
});

/** Ignored where no OS sandbox runs (no bubblewrap or sandbox-exec): every command is unsandboxed. */
const holds = (await sandboxState({ mode: "workspace-write" })).holds;

Deno.test({
  name: "a command svc's OS sandbox holds stays in svc even when the editor offers a terminal",
  ignore: !holds,
  async fn() {
    await using box = await sandbox({ "notes.txt": "x\n" });
    const out = await runThroughEditor(box, "echo in-sandbox");
    assert.deepEqual(out.stop, { stopReason: "end_turn" });
    assert.deepEqual(out.created, []);
    const end = out.updates.find((u) => u.sessionUpdate === "tool_call_update") as any;
    assert.deepEqual(end.content.map((c: any) => c.type), ["content"]);
    assert.equal(end.content[0].content.text, "exit code 0\nstdout:\nin-sandbox");
  },
});
