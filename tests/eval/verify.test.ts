import assert from "node:assert/strict";
import { parseFixture } from "../../src/eval/fixture.ts";
import {
  type CallObservation,
  classify,
  redundantCalls,
  traceScores,
} from "../../src/eval/observe.ts";
import { matches, verifyTrial } from "../../src/eval/verify.ts";

const WORKTREE = "/tmp/trial";

function call(name: string, args: Record<string, unknown> = {}, extra = {}): CallObservation {
  return {
    name,
    args,
    normalized: true,
    ok: true,
    error: null,
    mutating: false,
    key: `${name} ${JSON.stringify(args)}`,
    ...extra,
  };
}

function verdict(
  verify: Record<string, unknown>,
  calls: CallObservation[],
  answer = "",
  extra = {},
) {
  const fixture = parseFixture(
    { id: "t", prompt: "p", expected: ["glob", "file_read"], verify, ...extra },
    "test",
  );
  const canonical = (n: string) => (n === "read_file" ? "file_read" : n);
  return verifyTrial(fixture, { calls, answer, files: {}, worktree: WORKTREE }, canonical);
}

Deno.test("each verifier check says in words what failed", () => {
  const calls = [call("glob", { pattern: "*.toml" }), call("file_read", { path: "a.toml" })];
  const table: Array<[Record<string, unknown>, CallObservation[], string, string[]]> = [
    [{ exact: true }, calls, "", []],
    [{ exact: true }, [...calls, calls[1]], "", [
      "the tool trace was [glob, file_read, file_read], expected exactly [glob, file_read]",
    ]],
    [{ must_include: ["read_file", "grep"] }, calls, "", ["grep was never called"]],
    [{ avoid: ["glob"] }, calls, "", ["glob was called 1 time; the fixture avoids it"]],
    [{ max_calls: 1 }, calls, "", ["2 tool calls, at most 1 allowed"]],
    [{ min_calls: 3 }, calls, "", ["2 tool calls, at least 3 needed"]],
    [{ answer: { contains: ["TimeOut_ms = 4500"] } }, calls, "timeout_ms = 4500", []],
    [{ answer: { contains: ["4500"], absent: ["1000"] } }, calls, "1000 or 4500", [
      'the answer contains "1000", which it must not',
    ]],
    [{ answer: { regex: "^src/a\\.ts:\\d+$" } }, calls, "SRC/a.ts:12", []],
    [{ answer: { regex: "\\b5\\b" } }, calls, "7 files", ["the answer does not match /\\b5\\b/i"]],
  ];
  for (const [verify, observed, answer, failures] of table) {
    assert.deepEqual(verdict(verify, observed, answer).failures, failures, JSON.stringify(verify));
  }
});

Deno.test("args checks need one normalized call of the tool matching every key", () => {
  const read = (args: Record<string, unknown>, extra = {}) => call("file_read", args, extra);
  const check = {
    args: [{ tool: "read_file", match: { path: { path: "logs/a.log" }, offset: { min: 2 } } }],
  };
  assert.deepEqual(verdict(check, [read({ path: "./logs/../logs/a.log", offset: 40 })]), {
    failures: [],
    args_match: true,
  });
  assert.deepEqual(verdict(check, [read({ path: "logs/a.log" }), read({ offset: 40 })]), {
    failures: [
      "no file_read call had arguments matching path = the file logs/a.log, offset in [2, inf]",
    ],
    args_match: false,
  });
  // A call that did not normalize ran with no arguments at all; it never matches.
  assert.equal(
    verdict(check, [read({ path: "logs/a.log", offset: 3 }, { normalized: false })]).args_match,
    false,
  );
  assert.equal(verdict({ max_calls: 5 }, []).args_match, null);
});

Deno.test("argument matchers: literals, the same file, regex and ranges", () => {
  const table: Array<[unknown, Parameters<typeof matches>[1], boolean]> = [
    ["a.txt", "a.txt", true],
    [3, 3, true],
    ["3", 3, false],
    [true, true, true],
    ["notes/todo.txt", { path: "./notes/todo.txt" }, true],
    [`${WORKTREE}/notes/todo.txt`, { path: "notes/todo.txt" }, true],
    ["notes/todo.txt/", { path: "notes/todo.txt" }, true],
    ["other/todo.txt", { path: "notes/todo.txt" }, false],
    ["", { path: "." }, false],
    ["function computeChecksum\\(", { regex: "computeChecksum" }, true],
    [undefined, { regex: "x" }, false],
    [2750, { min: 2, max: 2750 }, true],
    [1, { min: 2, max: 2750 }, false],
    ["40", { min: 2 }, false],
  ];
  for (const [value, matcher, expected] of table) {
    assert.equal(
      matches(value, matcher, { worktree: WORKTREE }),
      expected,
      `${value} ${JSON.stringify(matcher)}`,
    );
  }
});

Deno.test("end-state file checks: exists, equals, contains", () => {
  const fixture = parseFixture({
    id: "t",
    prompt: "p",
    verify: {
      files: {
        "out.txt": { equals: "hello\n" },
        "log.txt": { contains: ["done"] },
        "tmp.txt": { exists: false },
        "made.txt": { exists: true },
      },
    },
  }, "test");
  const run = (files: Record<string, string | null>) =>
    verifyTrial(fixture, { calls: [], answer: "", files, worktree: WORKTREE }).failures;
  assert.deepEqual(
    run({ "out.txt": "hello\n", "log.txt": "all done", "tmp.txt": null, "made.txt": "" }),
    [],
  );
  assert.deepEqual(run({ "out.txt": "hi", "log.txt": null, "tmp.txt": "x", "made.txt": null }), [
    "out.txt is not the expected content (2 characters)",
    "log.txt does not exist",
    "tmp.txt exists; it must not",
    "made.txt does not exist",
  ]);
});

Deno.test("trace scores: multiset precision and recall, F1, in-order match", () => {
  const table: Array<[string[], string[], [number, number, number, boolean]]> = [
    [["glob", "file_read"], ["glob", "file_read"], [1, 1, 1, true]],
    [["file_read", "glob"], ["glob", "file_read"], [1, 1, 1, false]],
    [["glob", "grep", "file_read"], ["glob", "file_read"], [2 / 3, 1, 0.8, true]],
    [["file_read", "file_read"], ["file_read"], [0.5, 1, 2 / 3, true]],
    [["file_read"], ["file_read", "file_read"], [1, 0.5, 2 / 3, false]],
    [[], ["grep"], [0, 0, 0, false]],
    [[], [], [1, 1, 1, true]],
    [["grep"], [], [0, 1, 0, true]],
  ];
  for (const [trace, expected, [precision, recall, f1, in_order]] of table) {
    assert.deepEqual(traceScores(trace, expected), { precision, recall, f1, in_order }, `${trace}`);
  }
});

Deno.test("redundant calls: identical calls since the last state-changing call", () => {
  const read = call("file_read", { path: "a" });
  const write = call("file_write", { path: "a" }, { mutating: true });
  const table: Array<[CallObservation[], number]> = [
    [[read, read, read], 2],
    [[read, call("file_read", { path: "b" }), read], 1],
    [[read, write, read], 0],
    [[read, write, read, read], 1],
    [[write, write], 1],
    [[read, { ...write, mutating: false }, read], 1],
  ];
  for (const [calls, expected] of table) {
    assert.equal(redundantCalls(calls), expected, calls.map((c) => c.name).join(","));
  }
});

Deno.test("tool errors are classified from the audit record's outcome and reason", () => {
  const audit = (outcome: string, reason: string) => ({
    at: "",
    call_id: "c",
    tool: "t",
    category: "read",
    action: "allow" as const,
    outcome: outcome as "allowed",
    by: "policy" as const,
    reason,
  });
  assert.equal(classify(audit("denied", "unknown tool"), false), "unknown_tool");
  assert.equal(classify(audit("denied", "invalid arguments"), false), "invalid_arguments");
  assert.equal(classify(audit("denied", "not offered: edit is deny"), false), "denied");
  assert.equal(classify(audit("rejected", "edit is ask"), false), "denied");
  assert.equal(classify(audit("allowed", "read is allow"), false), "failed");
  assert.equal(classify(audit("allowed", "read is allow"), true), null);
  assert.equal(classify(audit("cancelled", "read is allow"), false), null);
  assert.equal(classify(undefined, false), "failed");
});
