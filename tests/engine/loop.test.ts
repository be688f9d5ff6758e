import assert from "node:assert/strict";
import * as z from "zod";
import { echoTool, harness, readStored } from "../_support/engine.ts";
import { LIVE_TOOL_MESSAGES } from "../../src/session/live.ts";
import { fixedApprover } from "../../src/tool/approval.ts";
import type { Tool } from "../../src/tool/types.ts";

Deno.test("a turn that calls a tool feeds the result back and returns the answer", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "hi" } }], usage: { prompt_tokens: 10 } },
    { text: "done: hi", usage: { prompt_tokens: 20, completion_tokens: 3 } },
  ]);
  const session = h.store.create("t1");
  const result = await h.engine.runTurn("say hi", { session });
  assert.equal(result.status, "ok");
  assert.equal(result.content, "done: hi");
  assert.equal(result.session, "t1");
  assert.deepEqual(result.tool_calls.map((c) => [c.name, c.arguments, c.decision, c.ok]), [
    ["echo", { text: "hi" }, "allow", true],
  ]);
  assert.deepEqual(result.usage, { prompt_tokens: 30, completion_tokens: 3 });
  const second = h.fake.requests[1].body;
  const toolMessage = second.messages.at(-1);
  assert.equal(toolMessage.role, "tool");
  assert.equal(toolMessage.content, 'echo: {"text":"hi"}');
  const stored = await readStored(h, "t1");
  assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.equal(stored.messages[1].model, "fake-model");
  assert.equal(stored.messages[1].provider, "generic");
  assert.equal(stored.permissions.length, 1);
  assert.deepEqual(
    [stored.permissions[0].tool, stored.permissions[0].action, stored.permissions[0].outcome],
    ["echo", "allow", "allowed"],
  );
});

Deno.test("an unknown tool call is answered with the available tool names", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "teleport", arguments: {} }] },
    { text: "ok" },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  const reply = h.fake.requests[1].body.messages.at(-1).content;
  assert.equal(reply, 'Error: unknown tool "teleport". Available tools: ask, delegate, echo');
  assert.equal(result.tool_calls[0].ok, false);
});

Deno.test("aliases, argument aliases, nulls and undeclared arguments are normalized", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo_alias", arguments: { words: "x", junk: 1, path: null } }] },
    { text: "ok" },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls[0].name, "echo");
  assert.deepEqual(result.tool_calls[0].arguments, { text: "x" });
});

Deno.test("the schema advertises canonical names only and omits denied tools", async () => {
  await using h = await harness([{ text: "ok" }], {
    tools: [echoTool(), echoTool("shell", "bash")],
    config: { "tools.deny": ["ask"], tool_permission: { bash: "deny", delegate: "deny" } },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const names = h.fake.requests[0].body.tools.map((t: { function: { name: string } }) =>
    t.function.name
  );
  assert.deepEqual(names, ["echo"]);
});

Deno.test("tool_calling false sends no tools", async () => {
  await using h = await harness([{ text: "ok" }], { config: { tool_calling: false } });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(h.fake.requests[0].body.tools, undefined);
});

Deno.test("headless ask-gated calls are denied with [cancelled] and audited", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "shell", arguments: { text: "rm" } }] },
    { text: "ok" },
  ], { tools: [echoTool("shell", "bash")] });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, "[cancelled]");
  assert.equal(result.tool_calls[0].decision, "ask");
  const stored = await readStored(h, "t");
  assert.deepEqual(
    [stored.permissions[0].action, stored.permissions[0].outcome, stored.permissions[0].by],
    ["ask", "denied", "policy"],
  );
});

Deno.test("an approver runs ask-gated calls", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "shell", arguments: { text: "ls" } }] },
    { text: "ok" },
  ], {
    tools: [echoTool("shell", "bash")],
    approver: fixedApprover({ answer: "once", by: "flag" }),
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, 'echo: {"text":"ls"}');
  assert.equal(result.tool_calls[0].ok, true);
});

Deno.test("a path outside the worktree escalates allow to ask", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "x", path: "../../etc/passwd" } }] },
    { tool_calls: [{ name: "echo", arguments: { text: "y", path: "sub/file.txt" } }] },
    { text: "ok" },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => c.decision), ["ask", "allow"]);
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, "[cancelled]");
});

Deno.test("plan mode denies edit and bash tools and says so in the system prompt", async () => {
  await using h = await harness([{ text: "plan" }], {
    tools: [echoTool("writer", "edit"), echoTool("reader", "read")],
    config: { mode: "plan" },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const body = h.fake.requests[0].body;
  assert.deepEqual(body.tools.map((t: { function: { name: string } }) => t.function.name), [
    "ask",
    "delegate",
    "reader",
  ]);
  assert.match(body.messages[0].content, /plan mode/);
});

Deno.test("project instructions lead the system messages, capped at 20000 characters", async () => {
  await using h = await harness([{ text: "ok" }], {
    files: { "AGENTS.md": "RULE ".repeat(5000) },
    config: { system_prompt: "You are terse." },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const [first, second] = h.fake.requests[0].body.messages;
  assert.equal(first.role, "system");
  assert.match(first.content, /^Project instructions \(AGENTS\.md\)/);
  assert.match(first.content, /truncated at 20000 characters/);
  assert.ok(first.content.length < 20200);
  assert.match(second.content, /^You are terse\.\n\nEnvironment:\n/);
});

Deno.test("a huge project instructions file is read only as far as the cap", async () => {
  await using h = await harness([{ text: "ok" }], {
    files: { "AGENTS.md": "é".repeat(5_000_000) },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const first = h.fake.requests[0].body.messages[0].content;
  assert.equal(
    first,
    `Project instructions (AGENTS.md):\n\n${"é".repeat(20000)}\n` +
      "[... AGENTS.md truncated at 20000 characters]",
  );
});

Deno.test("project instructions that point at /dev/zero or a FIFO are skipped, not read", async () => {
  for (const make of ["symlink", "fifo"]) {
    await using h = await harness([{ text: "ok" }]);
    const path = `${h.worktree}/AGENTS.md`;
    if (make === "symlink") await Deno.symlink("/dev/zero", path);
    else await new Deno.Command("mkfifo", { args: [path] }).output();
    const result = await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.equal(result.status, "ok");
    const system = h.fake.requests[0].body.messages.filter((m: { role: string }) =>
      m.role === "system"
    );
    assert.equal(system.length, 1, make);
    assert.doesNotMatch(system[0].content, /Project instructions/);
  }
});

Deno.test("an empty project_instructions disables the file", async () => {
  await using h = await harness([{ text: "ok" }], {
    files: { "AGENTS.md": "RULES" },
    config: { project_instructions: "" },
  });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(
    h.fake.requests[0].body.messages.filter((m: { role: string }) => m.role === "system").length,
    1,
  );
});

Deno.test("reasoning deltas and <think> blocks become thinking, not content", async () => {
  await using h = await harness([
    { thinking: "ponder", text: "<think>inner</think>Answer", chunkSize: 3 },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.content, "Answer");
  assert.equal(result.thinking, "ponderinner");
  const stored = await readStored(h, "t");
  assert.equal(stored.messages[1].thinking, "ponderinner");
});

Deno.test("finish reason length ends truncated with a warning naming the configured cap", async () => {
  await using h = await harness([{ text: "cut", finish: "length" }], {
    config: { max_tokens: 50 },
  });
  const warnings: string[] = [];
  const result = await h.engine.runTurn("go", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && warnings.push(e.message),
  });
  assert.equal(result.status, "truncated");
  assert.match(warnings[0], /configured max_tokens cap \(50\)/);
  assert.equal(h.fake.requests[0].body.max_tokens, 50);
  assert.equal((await readStored(h, "t")).errors[0].code, "max_tokens");
});

Deno.test("max_tokens 0 omits the cap and the warning names the provider default", async () => {
  await using h = await harness([{ text: "cut", finish: "length" }], {
    config: { max_tokens: 0 },
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(h.fake.requests[0].body.max_tokens, undefined);
  assert.match(result.errors[0].message, /provider's default output limit/);
});

Deno.test("an answer with no text ends with status empty", async () => {
  await using h = await harness([{ text: "" }]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.status, "empty");
});

Deno.test("a provider failure ends the turn with status error and a session error", async () => {
  await using h = await harness([{ status: 500, body: "boom" }, { status: 500 }, { status: 500 }]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.status, "error");
  assert.equal(result.errors.length, 1);
  assert.deepEqual((await readStored(h, "t")).errors.map((e: { code: string }) => e.code), [
    result.errors[0].code,
  ]);
});

Deno.test("a stream cut with no content after every attempt reports the SPEC error", async () => {
  await using h = await harness([{ cut: true }, { cut: true }, { cut: true }]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.status, "error");
  assert.equal(h.fake.requests.length, 3);
  assert.match(result.errors[0].message, /Stream ended before a completion event/);
});

Deno.test("a stream failure after tool calls warns that results are saved", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }] },
    { cut: true },
    { cut: true },
    { cut: true },
  ]);
  const warnings: string[] = [];
  const result = await h.engine.runTurn("go", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && warnings.push(e.message),
  });
  assert.equal(result.status, "error");
  assert.match(warnings.join("\n"), /results are saved in the session; send a follow-up/);
});

Deno.test("cancelling during a stalled stream keeps and persists the partial answer", async () => {
  await using h = await harness([{ stall: true, text: "partial answer" }]);
  const controller = new AbortController();
  const session = h.store.create("t");
  const result = await h.engine.runTurn("go", {
    session,
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === "token" && e.content.includes("answer")) controller.abort();
      if (e.type === "token") setTimeout(() => controller.abort(), 300);
    },
  });
  assert.equal(result.status, "cancelled");
  assert.equal(result.content, "partial answer");
  const stored = await readStored(h, "t");
  assert.equal(stored.messages[1].content, "partial answer");
  assert.equal(stored.messages[1].partial, true);
});

Deno.test("tool_max_result_chars caps what the model sees at a line boundary", async () => {
  const big = echoTool("big");
  big.run = () => Promise.resolve(Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
  await using h = await harness([
    { tool_calls: [{ name: "big", arguments: { text: "" } }] },
    { text: "ok" },
  ], { tools: [big], config: { tool_max_result_chars: 300 } });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const seen: string = h.fake.requests[1].body.messages.at(-1).content;
  assert.match(seen, /^line 0\nline 1\n/);
  assert.match(seen, /truncated/);
  assert.ok(!/line 9[0-9]/.test(seen));
});

Deno.test("noise_tools and session_tool_max_chars shape only the persisted log", async () => {
  const fetcher = echoTool("web_fetch");
  fetcher.run = () => Promise.resolve("PAGE TEXT ".repeat(50));
  const lister = echoTool("lister");
  lister.run = () => Promise.resolve("a\nb\nc\n".repeat(40));
  await using h = await harness([
    {
      tool_calls: [
        { name: "web_fetch", arguments: { text: "" } },
        { name: "lister", arguments: { text: "" } },
      ],
    },
    { text: "ok" },
  ], { tools: [fetcher, lister], config: { session_tool_max_chars: 20 } });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const sent = h.fake.requests[1].body.messages.slice(-2).map((m: { content: string }) =>
    m.content
  );
  assert.equal(sent[0], "PAGE TEXT ".repeat(50));
  const stored = (await readStored(h, "t")).messages.filter((m: { role: string }) =>
    m.role === "tool"
  );
  assert.match(stored[0].content, /excluded from the session log \(noise_tools\)/);
  assert.ok(stored[1].content.length < 200);
  assert.match(stored[1].content, /truncated/);
});

Deno.test("a shaped result older than the last 16 tool messages goes to the provider as stored", async () => {
  const fetcher = echoTool("web_fetch");
  fetcher.run = (args) => Promise.resolve(`PAGE ${(args as { text: string }).text}`);
  const rounds = LIVE_TOOL_MESSAGES + 1;
  await using h = await harness([
    ...Array.from({ length: rounds }, (_, i) => ({
      tool_calls: [{ id: `call_${i}`, name: "web_fetch", arguments: { text: String(i) } }],
    })),
    { text: "ok" },
  ], { tools: [fetcher] });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const sent = h.fake.requests[rounds].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => m.content);
  assert.equal(sent.length, rounds);
  assert.match(sent[0], /excluded from the session log \(noise_tools\)/);
  assert.deepEqual(sent.slice(1), Array.from({ length: rounds - 1 }, (_, i) => `PAGE ${i + 1}`));
});

Deno.test("tool_analysis stores a one-line analysis on the tool message", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: { text: "a" } }] },
    { text: "The echo returned a.\nmore" },
    { text: "final" },
  ], { config: { tool_analysis: true } });
  await h.engine.runTurn("go", { session: h.store.create("t") });
  const tool = (await readStored(h, "t")).messages.find((m: { role: string }) => m.role === "tool");
  assert.equal(tool.analysis, "The echo returned a.");
  assert.equal(h.fake.requests[1].body.stream, false);
});

Deno.test("ask with no one to answer returns the SPEC error and the run continues", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "ask", arguments: { question: "which?" } }] },
    { text: "I chose" },
  ]);
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.match(h.fake.requests[1].body.messages.at(-1).content, /^Error: ask has no one to answer/);
  assert.equal(result.status, "ok");
});

Deno.test("ask with target lead consults the lead's model with the delegated task", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "ask", arguments: { question: "which file?", target: "lead" } }] },
    { text: "use a.txt" },
    { text: "done" },
  ]);
  const lead = { client: h.engine.deps.client, model: "fake-model", task: "fix the bug" };
  const engine = await h.engine.derive({ lead });
  await engine.runTurn("go", { session: h.store.create("t") });
  assert.match(h.fake.requests[1].body.messages[1].content, /fix the bug[\s\S]*which file\?/);
  assert.equal(h.fake.requests[2].body.messages.at(-1).content, "use a.txt");
});

Deno.test("a model that never stops calling tools is stopped after 64 rounds with round_limit", async () => {
  const calls = Array.from({ length: 70 }, (_, i) => ({
    tool_calls: [{ name: "echo", arguments: { text: `round ${i + 1}` } }],
  }));
  await using h = await harness(calls);
  const session = h.store.create("t");
  const result = await h.engine.runTurn("go", { session });
  assert.equal(result.status, "error");
  assert.deepEqual(result.errors.map((e) => [e.code, e.message]), [
    ["round_limit", "Stopped after 64 rounds of tool calls"],
  ]);
  assert.equal(h.fake.requests.length, 64);
  assert.equal(result.tool_calls.length, 64);
  assert.deepEqual(session.data.errors.map((e) => e.code), ["round_limit"]);
});

Deno.test("past 64 tool calls in one round the rest are answered 'not run' and audited", async () => {
  const ran: string[] = [];
  const echo = echoTool();
  echo.run = (args) => {
    ran.push(String(args.text));
    return Promise.resolve("done");
  };
  const calls = Array.from({ length: 70 }, (_, i) => ({
    name: "echo",
    arguments: { text: `c${i}` },
    id: `call_${i}`,
  }));
  await using h = await harness([{ tool_calls: calls }, { text: "ok" }], { tools: [echo] });
  const session = h.store.create("t");
  const result = await h.engine.runTurn("go", { session });
  assert.equal(result.status, "ok");
  assert.deepEqual(ran, calls.slice(0, 64).map((c) => c.arguments.text));
  const answers = h.fake.requests[1].body.messages.filter((m: { role: string }) =>
    m.role === "tool"
  );
  assert.equal(answers.length, 70);
  const refusal = "Error: not run: at most 64 tool calls run per round; repeat the calls you " +
    "still need in your next reply";
  assert.deepEqual(
    answers.slice(63).map((m: { tool_call_id: string; content: string }) => [
      m.tool_call_id,
      m.content,
    ]),
    [["call_63", "done"], ...calls.slice(64).map((c) => [c.id, refusal])],
  );
  assert.deepEqual(
    result.tool_calls.slice(63).map((r) => [r.decision, r.ok]),
    [["allow", true], ...Array(6).fill(["deny", false])],
  );
  assert.equal(session.data.permissions.length, 70);
  assert.deepEqual(session.data.permissions.at(-1)?.outcome, "denied");
});

Deno.test("tools learn whether the worktree is trusted, and default to untrusted", async () => {
  for (const trusted of [undefined, false, true]) {
    const seen: unknown[] = [];
    const probe = echoTool();
    probe.run = (_args, ctx) => {
      seen.push(ctx.trusted);
      return Promise.resolve("ok");
    };
    await using h = await harness(
      [{ tool_calls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done" }],
      { tools: [probe], trusted },
    );
    await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.deepEqual(seen, [trusted === true]);
  }
});

Deno.test("invalid tool-call JSON becomes an error result the model can correct", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "echo", arguments: '{"text": "unterminated' }] },
    { text: "ok" },
  ]);
  await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.match(h.fake.requests[1].body.messages.at(-1).content, /not valid JSON/);
});

Deno.test("web_search: true injects results before the turn, refining a short query", async () => {
  const search = echoTool("web_search", "web");
  const queries: string[] = [];
  search.run = (args) => {
    queries.push(String(args.query));
    return Promise.resolve("1. Deno 2.9 released (https://example.test/deno)");
  };
  search.schema = z.object({ query: z.string() });
  await using h = await harness([
    { text: "deno 2.9 release notes" },
    { text: "It was released." },
  ], {
    tools: [search],
    config: { web_search: true, query_refine: true, tool_permission: { web: "allow" } },
  });
  const result = await h.engine.runTurn("when?", { session: h.store.create("t") });
  assert.equal(result.content, "It was released.");
  assert.deepEqual(queries, ["deno 2.9 release notes"]);
  const sent = h.fake.requests[1].body.messages;
  assert.equal(
    sent.at(-1).content,
    'Web search results for "deno 2.9 release notes":\n1. Deno 2.9 released (https://example.test/deno)',
  );
});

Deno.test("web_search: true skips injection and warns when the search fails", async () => {
  const search = echoTool("web_search", "web");
  search.schema = z.object({ query: z.string() });
  search.run = () => Promise.resolve({ content: "Error: backend down", ok: false });
  await using h = await harness([{ text: "ok" }], {
    tools: [search],
    config: { web_search: true, tool_permission: { web: "allow" } },
  });
  const warnings: string[] = [];
  await h.engine.runTurn("a long enough question here", {
    session: h.store.create("t"),
    onEvent: (e) => e.type === "warning" && warnings.push(e.message),
  });
  assert.equal(h.fake.requests[0].body.messages.at(-1).content, "a long enough question here");
  assert.match(
    warnings[0],
    /web_search for "a long enough question here" failed: Error: backend down/,
  );
});

/** A web_search tool that counts its runs. */
function countingSearch(): { tool: Tool; runs: string[] } {
  const runs: string[] = [];
  const tool = echoTool("web_search", "web");
  tool.schema = z.object({ query: z.string() });
  tool.run = (args) => {
    runs.push(String(args.query));
    return Promise.resolve("1. a result");
  };
  return { tool, runs };
}

for (
  const [why, config, reason] of [
    ["tools.deny names web_search", { "tools.deny": ["web_search"] }, "listed in tools.deny"],
    ["the web category is deny", { tool_permission: { web: "deny" } }, "web category is deny"],
  ] as const
) {
  Deno.test(`web_search injection does not run when ${why}, and is audited`, async () => {
    const { tool, runs } = countingSearch();
    await using h = await harness([{ text: "ok" }], {
      tools: [tool],
      config: { web_search: true, ...config },
    });
    const result = await h.engine.runTurn("a long enough question here", {
      session: h.store.create("t"),
    });
    assert.deepEqual(runs, []);
    assert.equal(result.status, "ok");
    assert.deepEqual(h.fake.requests[0].body.messages.map((m: { role: string }) => m.role), [
      "system",
      "user",
    ]);
    const stored = await readStored(h, "t");
    assert.deepEqual(
      stored.permissions.map(({ at: _a, call_id: _c, ...rest }: Record<string, unknown>) => rest),
      [{
        tool: "web_search",
        category: "web",
        action: "deny",
        outcome: "denied",
        by: "policy",
        reason,
      }],
    );
    assert.match(stored.permissions[0].call_id, /^web_search_inject_[0-9a-f]{8}$/);
  });
}

Deno.test("web_search injection asks like any call: headless without an approver, denied", async () => {
  const { tool, runs } = countingSearch();
  await using h = await harness([{ text: "ok" }], {
    tools: [tool],
    config: { web_search: true },
  });
  await h.engine.runTurn("a long enough question here", { session: h.store.create("t") });
  assert.deepEqual(runs, []);
  const stored = await readStored(h, "t");
  assert.deepEqual(
    stored.permissions.map((p: Record<string, unknown>) => [p.action, p.outcome, p.by]),
    [["ask", "denied", "policy"]],
  );
});

Deno.test("web_search injection runs when approved and the approval is audited", async () => {
  const { tool, runs } = countingSearch();
  await using h = await harness([{ text: "ok" }], {
    tools: [tool],
    config: { web_search: true },
    approver: fixedApprover({ answer: "once", by: "flag" }),
  });
  await h.engine.runTurn("a long enough question here", { session: h.store.create("t") });
  assert.deepEqual(runs, ["a long enough question here"]);
  const stored = await readStored(h, "t");
  assert.deepEqual(
    stored.permissions.map((p: Record<string, unknown>) => [p.action, p.outcome, p.by, p.scope]),
    [["ask", "approved", "flag", "once"]],
  );
});
