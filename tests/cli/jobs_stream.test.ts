/**
 * `svc jobs run --output stream-json` (the line envelope of `svc run --output stream-json`) and a
 * job's turn limits (`svc jobs add --max-turns ...`), end to end: real svc processes against the
 * scripted provider.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { sandbox, svc } from "../_support/cli.ts";
import { type FakeProvider, type Reply, startFakeProvider } from "../_support/fake_provider.ts";

const SCHEMA = JSON.parse(
  await Deno.readTextFile(new URL("../../docs/schema/stream-json.v1.json", import.meta.url)),
);
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(SCHEMA);

type Box = Awaited<ReturnType<typeof sandbox>>;
type Body = { stream?: boolean };

/** Each line of stdout as JSON, each valid against the stream-json schema. */
function lines(stdout: string): any[] {
  assert.equal(stdout.endsWith("\n"), true, `stdout does not end with a newline: ${stdout}`);
  return stdout.slice(0, -1).split("\n").map((line) => {
    const value = JSON.parse(line);
    assert.equal(validate(value), true, `${line}\n${JSON.stringify(validate.errors, null, 2)}`);
    return value;
  });
}

/** The global config of the sandbox's HOME, pointed at the fake provider. */
async function useProvider(box: Box, fake: FakeProvider, extra: object = {}): Promise<void> {
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({
      provider: "generic",
      base_url: fake.url,
      model: "m",
      stream_retries: 0,
      ...extra,
    }),
  );
}

const jobs = (box: Box, args: string[]) =>
  svc(["jobs", "--path", box.worktree, ...args], { cwd: box.worktree, env: box.env });

/** Streamed requests are the run's turn; unstreamed ones summarize the run memory. */
const scripted = (turn: (index: number) => Reply) => {
  let streamed = 0;
  return startFakeProvider((body: Body) =>
    body.stream === false ? { text: "memory" } : turn(streamed++)
  );
};

Deno.test("svc jobs run --output stream-json prints the run in svc run's line envelope: init, tool call, its result, the answer, the attempt and job events, then the result line", async () => {
  await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" });
  const turn: Reply[] = [
    { tool_calls: [{ name: "read_file", arguments: { file: "notes.txt" }, id: "call_1" }] },
    { text: "The secret word is PAPAYA.", usage: { prompt_tokens: 5, completion_tokens: 6 } },
  ];
  const fake = await scripted((i) => turn[i] ?? { text: "(none)" });
  try {
    await useProvider(box, fake);
    const added = await jobs(box, [
      "add",
      "secret",
      "--prompt",
      "Read notes.txt",
      "--approval",
      "auto",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const both = await jobs(box, ["run", "secret", "--json", "--output", "stream-json"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--json and --output stream-json cannot be combined/);
    const out = await jobs(box, ["run", "secret", "--output", "stream-json"]);
    assert.equal(out.code, 0, out.stderr);
    const all = lines(out.stdout);
    const kinds = all.map((l) =>
      l.type === "system" ? (l.subtype === "svc_event" ? l.event.type : l.subtype) : l.type
    ).filter((k) => !["status", "warning"].includes(k));
    assert.deepEqual(kinds, [
      "init",
      "attempt",
      "assistant",
      "user",
      "assistant",
      "attempt",
      "job_run",
      "result",
    ]);
    const [init] = all;
    assert.match(init.session_id, /^job_\d{8}_\d{6}_secret$/);
    assert.deepEqual(all.map((l) => l.session_id), all.map(() => init.session_id));
    assert.deepEqual([init.cwd, init.model, init.svc.provider], [box.worktree, "m", "generic"]);
    assert.equal(init.tools.includes("file_read"), true);
    const user = all.find((l) => l.type === "user");
    assert.match(user.message.content[0].content, /PAPAYA/);
    const end = all.at(-1);
    assert.deepEqual([end.subtype, end.is_error, end.num_turns, end.result], [
      "success",
      false,
      2,
      "The secret word is PAPAYA.",
    ]);
    const job = all.at(-2).event;
    assert.deepEqual([job.name, job.run, job.state, job.attempts, job.verified], [
      "secret",
      1,
      "verified",
      1,
      true,
    ]);
    // --json still prints the run report.
    const report = await jobs(box, ["run", "secret", "--json"]);
    assert.equal(report.code, 0, report.stderr);
    assert.deepEqual(JSON.parse(report.stdout).run, 2);
  } finally {
    await fake.close();
  }
});

/** A runaway model: every round lists the worktree again, 1100 tokens a round. */
const runaway = (index: number): Reply => ({
  tool_calls: [{ name: "list_dir", arguments: { path: "." }, id: `call_${index}` }],
  usage: { prompt_tokens: 1000, completion_tokens: 100 },
});

Deno.test("svc jobs add --max-turns, --max-tokens-total and --max-cost are stored on the job and end a runaway run truncated with the reason", async () => {
  await using box = await sandbox();
  const fake = await scripted(runaway);
  try {
    await useProvider(box, fake, { prices: { "generic/m": { input: 1, output: 10 } } });
    const added = await jobs(box, [
      "add",
      "loop",
      "--prompt",
      "loop forever",
      "--max-turns",
      "2",
      "--max-tokens-total",
      "100000",
      "--max-cost",
      "5",
      "--approval",
      "auto",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const stored = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/jobs.json`));
    assert.deepEqual(stored.jobs[0].limits, {
      max_turns: 2,
      max_tokens_total: 100000,
      max_cost: 5,
    });
    const out = await jobs(box, ["run", "loop", "--output", "stream-json"]);
    assert.equal(out.code, 0, out.stderr);
    const end = lines(out.stdout).at(-1);
    assert.deepEqual([end.subtype, end.svc.status, end.svc.reason], [
      "error_max_turns",
      "truncated",
      "max_turns",
    ]);
    assert.equal(fake.requests.filter((r) => r.body?.stream !== false).length, 2);
    assert.match(out.stderr, /loop run 1: verified \(truncated: max_turns\)/);
    // Each round costs (1000 * 1 + 100 * 10) / 1e6 = $0.002: the second reaches $0.004.
    const spend = await jobs(box, [
      "add",
      "spend",
      "--prompt",
      "loop forever",
      "--max-cost",
      "0.003",
      "--approval",
      "auto",
    ]);
    assert.equal(spend.code, 0, spend.stderr);
    const report = await jobs(box, ["run", "spend", "--json"]);
    assert.equal(report.code, 0, report.stderr);
    assert.deepEqual([JSON.parse(report.stdout).state, JSON.parse(report.stdout).reason], [
      "verified",
      "max_cost",
    ]);
    assert.equal(fake.requests.filter((r) => r.body?.stream !== false).length, 4);
    const register = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/jobs.json`));
    const attempt = register.jobs.find((j: any) => j.name === "spend").history[0];
    assert.deepEqual([attempt.status, attempt.reason], ["truncated", "max_cost"]);
  } finally {
    await fake.close();
  }
});
