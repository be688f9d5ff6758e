import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { sandbox, spawnSvc, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { byModel, guesserAgent, perfectAgent, wrongAgent } from "../_support/eval_agents.ts";

const IDS = [
  "find-then-read",
  "grep-symbol",
  "list-directory",
  "page-large-file",
  "read-file-lines",
];

/** Every file under `dir` with its content (folders as entries too). */
async function snapshot(dir: string, root = dir, out: Record<string, string> = {}) {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      out[`${relative(root, path)}/`] = "";
      await snapshot(path, root, out);
    } else out[relative(root, path)] = await Deno.readTextFile(path);
  }
  return out;
}

Deno.test("svc eval list shows the five bundled fixtures, and a local fixture overriding one", async () => {
  await using t = await sandbox({
    ".svc/eval/mine.json": JSON.stringify({
      id: "read-file-lines",
      description: "my own version",
      prompt: "Read a.txt",
      files: { "a.txt": "hello\n" },
      verify: { must_include: ["file_read"] },
    }),
  });
  const table = await svc(["eval", "list"], { cwd: t.worktree, env: t.env });
  assert.equal(table.code, 0, table.stderr);
  assert.deepEqual(table.stdout.split("\n").map((l) => l.split(/\s{2,}/).slice(0, 3)), [
    ["ID", "ORIGIN", "EXPECTED"],
    ["find-then-read", "plugin", "glob > file_read"],
    ["grep-symbol", "plugin", "grep"],
    ["list-directory", "plugin", "list_dir"],
    ["page-large-file", "plugin", "file_read"],
    ["read-file-lines", "local (overrides plugin)", "-"],
    [""],
  ]);
  const json = await svc(["eval", "list", "--output", "json"], { cwd: t.worktree, env: t.env });
  const listed = JSON.parse(json.stdout);
  assert.deepEqual(listed.map((f: { id: string }) => f.id), IDS);
  assert.deepEqual(listed[4], {
    id: "read-file-lines",
    description: "my own version",
    prompt: "Read a.txt",
    files: { "a.txt": { chars: 6 } },
    permissions: {},
    verify: { must_include: ["file_read"] },
    origin: "local",
    source: join(t.worktree, ".svc/eval/mine.json"),
    overrides: ["plugin"],
  });
});

Deno.test("svc eval run prints the table for the five bundled fixtures and exits 0 when every trial passes", async () => {
  await using t = await sandbox();
  const fake = await startFakeProvider(perfectAgent);
  const report = join(t.home, "report");
  try {
    const out = await svc(
      ["eval", "run", "--base-url", fake.url, "--model", "fake-model", "--report", report],
      { cwd: t.worktree, env: t.env },
    );
    assert.equal(out.code, 0, out.stderr);
    const rows = out.stdout.trimEnd().split("\n").map((l) => l.split(/\s{2,}/));
    assert.deepEqual(rows[0], [
      "FIXTURE",
      "MODEL",
      "PASSED",
      "RATE",
      "95% CI",
      "PASS^K",
      "F1",
      "REDUNDANT",
      "TOOL ERRORS",
      "TOKENS",
      "TIME",
      "OTHER OUTCOMES",
    ]);
    assert.deepEqual(
      rows.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[11]]),
      [
        ...IDS.map((
          id,
        ) => [id, "fake-model", "3/3", "1.00", "0.44-1.00", "1.00", "1.00", "0", "-", "-"]),
        [
          "all (5/5 passed)",
          "fake-model",
          "15/15",
          "1.00",
          "0.80-1.00",
          "-",
          "1.00",
          "0",
          "-",
          "-",
        ],
      ],
    );
    const progress = out.stderr.split("\n").filter((l) => l.startsWith("svc eval: trial "));
    assert.equal(progress.length, 15);
    assert.equal(
      progress[14],
      "svc eval: trial 15 of 15: read-file-lines #3 (fake-model) pass; 15 of 15 passed so far",
    );
    assert.match(out.stderr, new RegExp(`svc eval: report written to ${report}/report.json\n$`));
  } finally {
    await fake.close();
  }
});

Deno.test("svc eval run exits 1 when a fixture fails, and the JSON report names the failed checks", async () => {
  await using t = await sandbox();
  const fake = await startFakeProvider(wrongAgent);
  try {
    const out = await svc([
      "eval",
      "run",
      "--base-url",
      fake.url,
      "--model",
      "fake-model",
      "--fixture",
      "grep-symbol",
      "--repeats",
      "1",
      "--output",
      "json",
      "--report",
      join(t.home, "r"),
    ], { cwd: t.worktree, env: t.env });
    assert.equal(out.code, 1, out.stderr);
    const report = JSON.parse(out.stdout);
    assert.equal(report.passed, false);
    assert.deepEqual(report.fixtures.map((f: { id: string }) => f.id), ["grep-symbol"]);
    assert.deepEqual(report.fixtures[0].trials[0].failures, [
      "grep was never called",
      "5 tool calls, at most 3 allowed",
      "no grep call had arguments matching pattern ~ /computeChecksum/",
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("svc eval run --compare m1,m2 --output json writes a report a script can consume", async () => {
  await using t = await sandbox();
  const fake = await startFakeProvider(byModel({ good: perfectAgent, bad: guesserAgent }));
  const dir = join(t.home, "report");
  try {
    const out = await svc(
      [
        "eval",
        "run",
        "--base-url",
        fake.url,
        "--compare",
        "good,bad",
        "--output",
        "json",
        "--report",
        dir,
      ],
      { cwd: t.worktree, env: t.env },
    );
    assert.equal(out.code, 1, out.stderr);
    const report = JSON.parse(out.stdout);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(join(dir, "report.json"))), report);
    assert.equal(report.schema_version, 1);
    assert.equal(report.report_dir, dir);
    const p = report.provenance;
    assert.deepEqual(
      p.models,
      ["good", "bad"].map((model) => ({
        model,
        provider: "generic",
        base_url: fake.url,
        reasoning: "auto",
        temperature: null,
        max_tokens: 8192,
      })),
    );
    for (const hash of [p.system_prompt_sha256, p.tool_schemas_sha256, p.fixtures_sha256]) {
      assert.match(hash, /^[0-9a-f]{64}$/);
    }
    assert.deepEqual(Object.keys(p.fixture_sha256), IDS);
    assert.equal(p.svc_version, report.svc_version);
    assert.deepEqual([p.repeats, p.max_rounds, p.timeout_s], [3, 10, 120]);
    assert.equal(report.fixtures.length, 10);
    for (const f of report.fixtures) {
      assert.ok(IDS.includes(f.id));
      assert.equal(f.pass_rate, f.model === "good" ? 1 : 0);
      assert.equal(f.trials.length, 3);
      for (const trial of f.trials) {
        assert.equal(trial.outcome, f.model === "good" ? "pass" : "fail");
        assert.equal(trial.redundant_calls, 0);
        const transcript = JSON.parse(await Deno.readTextFile(join(dir, trial.transcript)));
        assert.deepEqual(
          [transcript.fixture, transcript.model, transcript.trial, transcript.outcome],
          [f.id, f.model, trial.trial, trial.outcome],
        );
      }
    }
    assert.deepEqual(
      report.models.map((m: { model: string; passes: number }) => [m.model, m.passes]),
      [
        ["good", 15],
        ["bad", 0],
      ],
    );
    assert.equal(report.comparisons.length, 1);
    const c = report.comparisons[0];
    assert.deepEqual([c.a, c.b, c.wins, c.ties, c.losses, c.verdict], [
      "good",
      "bad",
      5,
      0,
      0,
      "good better",
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("svc eval run leaves the user's worktree and sessions untouched", async () => {
  await using t = await sandbox({
    "notes/todo.txt": "my own notes\n",
    ".svc/sessions/ses_kept.json": '{"name":"ses_kept"}',
    ".svc/config.json": JSON.stringify({ max_tokens: 1000 }),
  });
  const fake = await startFakeProvider(perfectAgent);
  const before = await snapshot(t.worktree);
  let reportDir = "";
  try {
    const out = await svc(
      [
        "eval",
        "run",
        "--base-url",
        fake.url,
        "--model",
        "fake-model",
        "--repeats",
        "1",
        "--output",
        "json",
      ],
      { cwd: t.worktree, env: t.env },
    );
    assert.equal(out.code, 0, out.stderr);
    reportDir = JSON.parse(out.stdout).report_dir;
    assert.ok(!reportDir.startsWith(t.worktree), reportDir);
    assert.deepEqual(await snapshot(t.worktree), before);
    // The local config's max_tokens was used (kept key) and recorded.
    assert.equal(JSON.parse(out.stdout).provenance.models[0].max_tokens, 1000);
  } finally {
    await fake.close();
    if (reportDir) await Deno.remove(reportDir, { recursive: true });
  }
});

Deno.test("svc eval usage errors exit 2 with a one-line reason", async () => {
  await using t = await sandbox({ "notes.txt": "x" });
  const table: Array<[string[], string]> = [
    [["--repeats", "0"], "svc eval: --repeats takes a whole number from 1 to 1000\n"],
    [["--max-rounds", "65"], "svc eval: --max-rounds takes a whole number from 1 to 64\n"],
    [["--timeout", "0"], "svc eval: --timeout takes a number of seconds above 0 (at most 86400)\n"],
    [
      ["--compare", "a"],
      "svc eval: --compare takes two or more different models, comma-separated\n",
    ],
    [
      ["--compare", "a,a"],
      "svc eval: --compare takes two or more different models, comma-separated\n",
    ],
    [
      ["--model", "m", "--compare", "a,b"],
      "svc eval: --model and --compare cannot be combined; list every model in --compare\n",
    ],
    [
      ["--fixture", "nope,grep-symbol"],
      `svc eval: unknown fixture "nope"; available: ${IDS.join(", ")}\n`,
    ],
  ];
  for (const [args, stderr] of table) {
    const out = await svc(["eval", "run", ...args], { cwd: t.worktree, env: t.env });
    assert.deepEqual(out, { code: 2, stdout: "", stderr }, args.join(" "));
  }
  for (const report of [".", "notes.txt"]) {
    const out = await svc(["eval", "run", "--report", report], { cwd: t.worktree, env: t.env });
    const problem = report === "." ? "is not empty" : "is not a folder";
    assert.deepEqual(out, {
      code: 2,
      stdout: "",
      stderr: `svc eval: --report ${report} ${problem}; give a new or empty folder\n`,
    });
  }
  const bad = await svc(["eval", "run", "--output", "xml"], { cwd: t.worktree, env: t.env });
  assert.equal(bad.code, 2);
});

Deno.test("a failing backend makes svc eval run report engine_error outcomes and exit 1", async () => {
  await using t = await sandbox({
    ".svc/config.json": JSON.stringify({ stream_retries: 0 }),
  });
  const fake = await startFakeProvider(() => ({ status: 500 }));
  try {
    const out = await svc(
      [
        "eval",
        "run",
        "--base-url",
        fake.url,
        "--model",
        "m",
        "--fixture",
        "grep-symbol",
        "--repeats",
        "2",
        "--report",
        join(t.home, "r"),
      ],
      { cwd: t.worktree, env: t.env },
    );
    assert.equal(out.code, 1, out.stderr);
    const row = out.stdout.split("\n")[1].split(/\s{2,}/);
    assert.deepEqual([row[0], row[2], row.at(-1)], ["grep-symbol", "0/2", "2 engine_error"]);
  } finally {
    await fake.close();
  }
});

Deno.test("an invalid fixture file stops svc eval before any trial, naming the file and field", async () => {
  await using t = await sandbox({
    ".svc/eval/bad.json": JSON.stringify({ id: "x", prompt: "p", verify: { max_calls: -1 } }),
  });
  for (
    const args of [["eval", "list"], [
      "eval",
      "run",
      "--base-url",
      "http://127.0.0.1:9",
      "--model",
      "m",
    ]]
  ) {
    const out = await svc(args, { cwd: t.worktree, env: t.env });
    assert.deepEqual(out, {
      code: 1,
      stdout: "",
      stderr: `svc eval: Invalid fixture in ${
        join(t.worktree, ".svc/eval/bad.json")
      }: field verify.max_calls: Too small: expected number to be >=0\n`,
    });
  }
});

Deno.test("Ctrl-C stops svc eval run with exit 130 and keeps the transcripts written so far", async () => {
  await using t = await sandbox();
  let requests = 0;
  const fake = await startFakeProvider((body, index) => {
    requests++;
    return requests <= 2 ? perfectAgent(body, index) : { stall: true };
  });
  const dir = join(t.home, "r");
  try {
    const child = spawnSvc(
      [
        "eval",
        "run",
        "--base-url",
        fake.url,
        "--model",
        "m",
        "--fixture",
        "read-file-lines",
        "--report",
        dir,
      ],
      { cwd: t.worktree, env: t.env },
    );
    const started = Date.now();
    while (requests < 3 && Date.now() - started < 20_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGINT");
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 130, stderr);
    assert.match(stderr, new RegExp(`svc eval: cancelled; transcripts so far are in ${dir}\n$`));
    assert.ok(await Deno.stat(join(dir, "transcripts/1-m/read-file-lines/trial-1.json")));
  } finally {
    await fake.close();
  }
});
