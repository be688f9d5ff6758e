import assert from "node:assert/strict";
import { parseFixture } from "../../src/eval/fixture.ts";
import { EvalCancelled, runTrial, type TrialRecord } from "../../src/eval/trial.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { perfectAgent, redundant, USAGE, withoutUsage } from "../_support/eval_agents.ts";
import { evalHarness, LIMITS } from "./_harness.ts";

/** A record without its wall time (the only figure that differs between runs). */
function stable(record: TrialRecord): Omit<TrialRecord, "wall_ms"> {
  const { wall_ms: _, ...rest } = record;
  return rest;
}

const NO_TOOL_ERRORS = { unknown_tool: 0, invalid_arguments: 0, denied: 0, failed: 0 };

/** Tool calls of one round, then a final answer. */
function rounds(...replies: Array<Array<[string, Record<string, unknown> | string]> | string>) {
  return replies.map((r): Reply =>
    typeof r === "string"
      ? { text: r }
      : { tool_calls: r.map(([name, args], i) => ({ name, arguments: args, id: `c${i}` })) }
  );
}

Deno.test("a perfect agent passes read-file-lines, with every metric of the trial", async () => {
  await using h = await evalHarness(perfectAgent);
  const fixture = h.bundled.get("read-file-lines")!;
  const run = await runTrial(h.setup, { target: h.target(), fixture, trial: 1, limits: LIMITS });
  assert.deepEqual(stable(run.record), {
    trial: 1,
    outcome: "pass",
    failures: [],
    status: "ok",
    trace: ["file_read"],
    calls: 1,
    rounds: 2,
    precision: 1,
    recall: 1,
    f1: 1,
    in_order: true,
    args_match: true,
    redundant_calls: 0,
    tool_errors: NO_TOOL_ERRORS,
    engine_errors: [],
    tokens: {
      prompt: 2 * USAGE.prompt_tokens,
      completion: 2 * USAGE.completion_tokens,
      total: 2 * USAGE.total_tokens,
    },
  });
  assert.ok(run.record.wall_ms > 0);
  assert.deepEqual(
    run.transcript.session.messages.map((m) => m.role),
    ["user", "assistant", "tool", "assistant"],
  );
  assert.deepEqual(
    run.transcript.session.permissions.map((p) => [p.tool, p.outcome]),
    [["file_read", "allowed"]],
  );
  assert.equal(run.transcript.result.status, "ok");
});

Deno.test("a redundant agent's identical repeated call is counted, and the trial still passes", async () => {
  await using h = await evalHarness(redundant(perfectAgent));
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get("read-file-lines")!,
    trial: 1,
    limits: LIMITS,
  });
  assert.equal(run.record.outcome, "pass");
  assert.deepEqual(run.record.trace, ["file_read", "file_read"]);
  assert.equal(run.record.redundant_calls, 1);
  assert.deepEqual(
    [run.record.precision, run.record.recall, run.record.f1],
    [0.5, 1, 2 / 3],
  );
});

Deno.test("tool errors are told apart from the audit: unknown tool, invalid arguments, denied, failed", async () => {
  await using h = await evalHarness(rounds(
    [
      ["frobnicate", {}],
      ["file_read", { offset: "x" }],
      ["file_write", { path: "a.txt", content: "x" }],
      ["file_read", { path: "/etc/hostname" }],
      ["file_read", { path: "missing.txt" }],
      ["read_file", { file: "a.txt" }],
    ],
    "done",
  ));
  const fixture = parseFixture({
    id: "errors",
    prompt: "make mistakes",
    files: { "a.txt": "alpha\n" },
    verify: { max_calls: 10 },
  }, "test");
  const run = await runTrial(h.setup, { target: h.target(), fixture, trial: 1, limits: LIMITS });
  assert.deepEqual(run.record.trace, [
    "frobnicate",
    "file_read",
    "file_write",
    "file_read",
    "file_read",
    "file_read",
  ]);
  // file_write is not offered (edit is denied) and /etc/hostname lies outside the worktree
  // (ask, refused headless): both denied. The alias call at the end ran fine.
  assert.deepEqual(run.record.tool_errors, {
    unknown_tool: 1,
    invalid_arguments: 1,
    denied: 2,
    failed: 1,
  });
  assert.equal(run.record.outcome, "pass");
});

const editFixture = (permissions: Record<string, string>) =>
  parseFixture({
    id: "rewrite",
    prompt: "read a.txt, replace it with 'new', read it again",
    files: { "a.txt": "old\n" },
    permissions,
    verify: { files: { "a.txt": { equals: "new\n" } } },
  }, "test");

const readWriteRead = () =>
  rounds(
    [["file_read", { path: "a.txt" }]],
    [["file_write", { path: "a.txt", content: "new\n" }]],
    [["file_read", { path: "a.txt" }]],
    [["file_read", { path: "a.txt" }]],
    "done",
  );

Deno.test("a write between two identical reads makes the second read not redundant, and the end-state check sees the file", async () => {
  await using h = await evalHarness(readWriteRead());
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: editFixture({ edit: "allow" }),
    trial: 1,
    limits: LIMITS,
  });
  assert.deepEqual(run.record.trace, ["file_read", "file_write", "file_read", "file_read"]);
  assert.equal(run.record.redundant_calls, 1);
  assert.equal(run.record.outcome, "pass");
});

Deno.test("under the eval defaults the write is denied: nothing changes, the reads are redundant, the end-state check fails", async () => {
  await using h = await evalHarness(readWriteRead());
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: editFixture({}),
    trial: 1,
    limits: LIMITS,
  });
  assert.equal(run.record.tool_errors.denied, 1);
  assert.equal(run.record.redundant_calls, 2);
  assert.equal(run.record.outcome, "fail");
  assert.deepEqual(run.record.failures, ["a.txt is not the expected content (4 characters)"]);
});

Deno.test("a failing backend ends the trial as engine_error with the provider's error kept", async () => {
  await using h = await evalHarness(() => ({ status: 500 }), { config: { stream_retries: 0 } });
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get("grep-symbol")!,
    trial: 1,
    limits: LIMITS,
  });
  assert.equal(run.record.outcome, "engine_error");
  assert.equal(run.record.status, "error");
  assert.deepEqual(run.record.failures, ["http_500: generic returned HTTP 500: HTTP 500"]);
  assert.deepEqual(run.record.engine_errors, [
    { code: "http_500", message: "generic returned HTTP 500: HTTP 500" },
  ]);
  assert.deepEqual(run.record.trace, []);
  assert.deepEqual([run.record.precision, run.record.recall, run.record.f1], [null, null, null]);
});

Deno.test("a trial past its wall-clock limit ends as timeout, promptly", async () => {
  await using h = await evalHarness(() => ({ stall: true }));
  const started = performance.now();
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get("grep-symbol")!,
    trial: 1,
    limits: {
      maxRounds: 10,
      timeoutMs: 300,
    },
  });
  assert.equal(run.record.outcome, "timeout");
  assert.deepEqual(run.record.failures, ["the turn took longer than 0.3 s"]);
  assert.ok(performance.now() - started < 3000);
});

Deno.test("a model that keeps calling tools is stopped at the round limit before the extra calls run", async () => {
  await using h = await evalHarness((_body, index) => ({
    tool_calls: [{ name: "file_read", arguments: { path: "notes/todo.txt", offset: index + 1 } }],
  }));
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get("read-file-lines")!,
    trial: 1,
    limits: {
      maxRounds: 3,
      timeoutMs: 10_000,
    },
  });
  assert.equal(run.record.outcome, "turn_limit");
  assert.deepEqual(run.record.failures, ["the model asked for more than 3 rounds of tool calls"]);
  assert.equal(run.record.calls, 3);
  assert.equal(run.record.rounds, 4);
  assert.equal(h.fake.requests.filter((r) => r.path === "/v1/chat/completions").length, 4);
});

Deno.test("tokens are null with a reason when the provider reports no usage", async () => {
  await using h = await evalHarness(withoutUsage(perfectAgent));
  const run = await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get("list-directory")!,
    trial: 1,
    limits: LIMITS,
  });
  assert.equal(run.record.outcome, "pass");
  assert.equal(run.record.tokens, null);
  assert.equal(run.record.tokens_note, "the provider reported no token usage");
});

Deno.test("each trial runs in a fresh temporary worktree that is removed afterwards", async () => {
  await using h = await evalHarness(perfectAgent);
  const fixture = h.bundled.get("read-file-lines")!;
  await runTrial(h.setup, { target: h.target(), fixture, trial: 1, limits: LIMITS });
  await runTrial(h.setup, { target: h.target(), fixture, trial: 2, limits: LIMITS });
  const worktrees = h.fake.requests
    .filter((r) => r.path === "/v1/chat/completions")
    .map((r) => /^Worktree: (\S+)$/m.exec(r.body.messages[0].content)![1]);
  const distinct = [...new Set(worktrees)];
  assert.equal(distinct.length, 2);
  for (const dir of distinct) {
    assert.match(dir, /svc-eval-trial-/);
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  }
});

Deno.test("aborting the caller's signal cancels the trial with EvalCancelled", async () => {
  await using h = await evalHarness(() => ({ stall: true }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(
    runTrial(h.setup, {
      target: h.target(),
      fixture: h.bundled.get("grep-symbol")!,
      trial: 1,
      limits: LIMITS,
      signal: controller.signal,
    }),
    EvalCancelled,
  );
});
