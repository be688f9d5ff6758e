import assert from "node:assert/strict";
import { join } from "node:path";
import { FixtureError, parseFixture } from "../../src/eval/fixture.ts";
import { loadFixtures } from "../../src/eval/sources.ts";
import { evalHarness, LIMITS } from "./_harness.ts";
import { runTrial } from "../../src/eval/trial.ts";

const good = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  prompt: `prompt of ${id}`,
  verify: { max_calls: 3 },
  ...extra,
});

async function roots(files: { global?: Record<string, string>; local?: Record<string, string> }) {
  const base = await Deno.makeTempDir({ prefix: "svc-eval-fixtures-" });
  const globalDir = join(base, "home");
  const worktree = join(base, "work");
  for (
    const [dir, entries] of [
      [join(globalDir, "eval"), files.global],
      [join(worktree, ".svc", "eval"), files.local],
    ] as const
  ) {
    await Deno.mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(entries ?? {})) {
      await Deno.writeTextFile(join(dir, name), text);
    }
  }
  return {
    globalDir,
    worktree,
    localDir: join(worktree, ".svc", "eval"),
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

Deno.test("fixtures merge by id: local over global over plugin, a file holds one fixture or a list", async () => {
  await using r = await roots({
    global: {
      "a.json": JSON.stringify(good("shared", { prompt: "global" })),
      "b.json": JSON.stringify([good("global-only"), good("both", { prompt: "global" })]),
      "notes.txt": "not a fixture",
    },
    local: { "x.json": JSON.stringify([good("shared", { prompt: "local" }), good("both")]) },
  });
  const loaded = await loadFixtures({
    plugins: [good("shared", { prompt: "plugin" }), good("plugin-only")],
    globalDir: r.globalDir,
    worktree: r.worktree,
  });
  assert.deepEqual(
    loaded.map((l) => [l.fixture.id, l.origin, l.fixture.prompt, l.overrides]),
    [
      ["both", "local", "prompt of both", ["global"]],
      ["global-only", "global", "prompt of global-only", []],
      ["plugin-only", "plugin", "prompt of plugin-only", []],
      ["shared", "local", "local", ["plugin", "global"]],
    ],
  );
  assert.equal(loaded[0].where, join(r.localDir, "x.json"));
});

Deno.test("an invalid fixture is refused with its file and field named", async () => {
  const table: Array<[unknown, string]> = [
    [
      { ...good("a"), verify: { max_calls: "three" } },
      "field verify.max_calls: Invalid input: expected number, received string",
    ],
    [{ ...good("a"), verify: { max_call: 3 } }, 'field verify: Unrecognized key: "max_call"'],
    [
      { id: "a", verify: { max_calls: 1 } },
      "field prompt: Invalid input: expected string, received undefined",
    ],
    [{ ...good("a"), verify: {} }, "field verify: give at least one check, or every run passes"],
    [
      { ...good("a"), verify: { exact: true } },
      'field verify.exact: needs "expected", the trace to compare with',
    ],
    [
      { ...good("a"), verify: { min_calls: 4, max_calls: 2 } },
      "field verify.min_calls: is more than max_calls (2)",
    ],
    [
      { ...good("a"), verify: { answer: { regex: "(" } } },
      "field verify.answer.regex: invalid regex:",
    ],
    [
      { ...good("a"), verify: { args: [{ tool: "grep", match: { pattern: { regex: "[" } } }] } },
      "field verify.args.0.match.pattern: invalid regex:",
    ],
    [
      { ...good("a"), verify: { args: [{ tool: "grep", match: { pattern: { glob: "*" } } }] } },
      'field verify.args.0.match.pattern: Unrecognized key: "glob"',
    ],
    [good("Upper"), "field id: an id is 1-64 lowercase letters"],
    [
      { ...good("a"), permissions: { bash: "allow" } },
      'field permissions: Unrecognized key: "bash"',
    ],
    [
      { ...good("a"), files: { "a/b": "x", "a": "y" } },
      'field files["a/b"]: needs a to be a folder, not a file',
    ],
  ];
  for (const [raw, field] of table) {
    await using r = await roots({ local: { "bad.json": JSON.stringify(raw) } });
    const path = join(r.localDir, "bad.json");
    await assert.rejects(
      loadFixtures({ plugins: [], globalDir: r.globalDir, worktree: r.worktree }),
      (err: Error) => {
        assert.ok(err instanceof FixtureError);
        assert.ok(
          err.message.startsWith(`Invalid fixture in ${path}: ${field}`),
          `${err.message}\n  should start with: Invalid fixture in ${path}: ${field}`,
        );
        return true;
      },
    );
  }
});

Deno.test("a fixture file that is not JSON, or an id defined twice in one folder, is refused naming the files", async () => {
  {
    await using r = await roots({ global: { "broken.json": "{ nope" } });
    await assert.rejects(
      loadFixtures({ plugins: [], globalDir: r.globalDir, worktree: r.worktree }),
      new RegExp(`^FixtureError: ${join(r.globalDir, "eval", "broken.json")} is not valid JSON`),
    );
  }
  {
    await using r = await roots({
      local: { "1.json": JSON.stringify(good("twice")), "2.json": JSON.stringify(good("twice")) },
    });
    await assert.rejects(
      loadFixtures({ plugins: [], globalDir: r.globalDir, worktree: r.worktree }),
      {
        message: `Fixture id "twice" is defined twice in ${r.localDir}: ${
          join(r.localDir, "1.json")
        } and ${join(r.localDir, "2.json")}; rename or remove one`,
      },
    );
  }
  await assert.rejects(
    loadFixtures({ plugins: [{ id: "p", prompt: "" }], globalDir: "/nonexistent", worktree: "/x" }),
    { message: `Invalid fixture in plugin fixture "p": field prompt: the prompt is empty` },
  );
});

Deno.test("fixture files cannot be provisioned outside the trial worktree", async () => {
  // The attack, without svc: a naive join of a fixture path escapes the folder it is joined to.
  const base = await Deno.makeTempDir({ prefix: "svc-eval-escape-" });
  try {
    const trial = join(base, "trial");
    await Deno.mkdir(trial);
    const escaped = join(trial, "../escaped.txt");
    await Deno.writeTextFile(escaped, "planted");
    assert.equal(escaped, join(base, "escaped.txt"));
    await Deno.remove(escaped);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
  // svc refuses every such path, from any source, before a trial starts.
  const table: Array<[string, string]> = [
    ["../escaped.txt", "contains a .. segment"],
    ["a/../../escaped.txt", "contains a .. segment"],
    ["/etc/cron.d/x", "is absolute"],
    ["C:/x", "is absolute"],
    ["a\\..\\..\\x", "contains a backslash"],
    ["a\0b", "contains a NUL character"],
    ["", "is empty"],
    ["dir/", "names a folder, not a file"],
    [".", "names a folder, not a file"],
  ];
  for (const [path, problem] of table) {
    for (const key of ["files", "verify"] as const) {
      const raw = key === "files"
        ? good("x", { files: { [path]: "planted" } })
        : good("x", { verify: { files: { [path]: { exists: true } } } });
      assert.throws(
        () => parseFixture(raw, "plugin fixture"),
        (err: Error) => err instanceof FixtureError && err.message.includes(problem),
        `${key}: ${JSON.stringify(path)}`,
      );
    }
  }
});

Deno.test("a fixture's nested files are provisioned inside the trial worktree only", async () => {
  await using h = await evalHarness([{
    tool_calls: [{ name: "file_read", arguments: { path: "deep/er/x.txt" } }],
  }, { text: "ok" }]);
  const fixture = parseFixture(
    good("nested", {
      files: { "deep/er/x.txt": "inside\n" },
      verify: { answer: { contains: ["ok"] } },
    }),
    "test",
  );
  const run = await runTrial(h.setup, { target: h.target(), fixture, trial: 1, limits: LIMITS });
  assert.equal(run.record.outcome, "pass");
  const tool = run.transcript.session.messages.find((m) => m.role === "tool");
  assert.match(tool!.content!, /1\tinside/);
});

Deno.test("the example fixtures in docs/eval.md are valid", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/eval.md", import.meta.url));
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
  assert.deepEqual(
    blocks.map((raw) => parseFixture(raw, "docs/eval.md").id),
    ["secret-word", "write-greeting"],
  );
});
