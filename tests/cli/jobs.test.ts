/**
 * `svc jobs` end to end: real svc processes with a temp HOME and worktree, the scripted provider,
 * one real daemon process firing an interval job and stopping on SIGTERM (the smoke test). The
 * daemon's and the runner's state machines are tested on fake time in tests/jobs/.
 */
import assert from "node:assert/strict";
import { sandbox, spawnSvc, svc } from "../_support/cli.ts";
import { TEST_BUILD } from "../_support/builds.ts";
import { type FakeProvider, startFakeProvider } from "../_support/fake_provider.ts";
import { SVC_PERMISSIONS, SVC_V8_FLAGS } from "../../src/launch/svc_command.ts";

type Body = { stream?: boolean; messages: Array<{ role: string; content: string }> };
type Box = Awaited<ReturnType<typeof sandbox>>;

/** Points the global config of the sandbox's HOME at the fake provider. */
async function useProvider(box: Box, fake: FakeProvider): Promise<void> {
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({ provider: "generic", base_url: fake.url, model: "m", stream_retries: 0 }),
  );
}

// deno-lint-ignore no-explicit-any
type JobRecord = Record<string, any>;

async function register(box: Box): Promise<JobRecord[]> {
  return JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/jobs.json`)).jobs;
}

async function job(box: Box, name: string) {
  return (await register(box)).find((j) => j.name === name)!;
}

async function jobs(box: Box, args: string[], env: Record<string, string> = box.env) {
  return await svc(["jobs", "--path", box.worktree, ...args], { cwd: box.worktree, env });
}

/** Waits until `check` is true (polling every 100 ms), failing after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A fake provider: streamed answers `answer N`, memory summaries `memory after N`. */
function scripted() {
  let answers = 0;
  let summaries = 0;
  return startFakeProvider((body: Body) =>
    body.stream === false
      ? { text: `memory after ${++summaries}` }
      : { text: `answer ${++answers}` }
  );
}

Deno.test("svc jobs daemon fires an approved interval job, one job_ session per run, memory carried into the next run, and stops on SIGTERM", async () => {
  await using box = await sandbox({}, { trusted: true });
  const fake = await scripted();
  try {
    await useProvider(box, fake);
    const added = await jobs(box, [
      "add",
      "digest",
      "--every",
      "1",
      "--prompt",
      "Write the digest",
      "--approval",
      "auto",
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /Added job digest \(every 1 s\): will_run, next run /);
    const daemon = spawnSvc(["jobs", "--path", box.worktree, "daemon", "--tick", "1"], {
      cwd: box.worktree,
      env: box.env,
    });
    await until(async () => (await job(box, "digest")).fired.ok >= 2, 20_000, "two runs");
    const second = await jobs(box, ["daemon", "--tick", "1"]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /a jobs daemon already runs for .* \(pid \d+, started /);
    const status = await jobs(box, ["status", "--json"]);
    const report = JSON.parse(status.stdout);
    assert.equal(report.daemon.running, true);
    assert.equal(report.trusted, true);
    assert.deepEqual(report.notes, []);
    daemon.kill("SIGTERM");
    const out = await daemon.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.match(stderr, /svc jobs daemon: stopped/);
    const digest = await job(box, "digest");
    assert.ok(digest.fired.ok >= 2);
    assert.ok(["verified", "failed", "will_run"].includes(digest.state), digest.state);
    const sessions = [...Deno.readDirSync(`${box.worktree}/.svc/sessions`)].map((e) => e.name)
      .filter((name) => name.endsWith(".json"));
    assert.ok(sessions.length >= 2);
    for (const name of sessions) assert.match(name, /^job_\d{8}_\d{6}_digest(_\d+)?\.json$/);
    // The second run's system prompt carries the first run's memory.
    const streamed = fake.requests.map((r) => r.body as Body).filter((b) => b.stream !== false);
    const system = streamed[1].messages.filter((m) => m.role === "system").map((m) => m.content)
      .join("\n");
    assert.match(system, /## Job task\n\n# Job digest\n\n## Task\n\nWrite the digest/);
    assert.match(system, /## Run memory\n\nmemory after 1/);
    assert.equal(streamed[1].messages.at(-1)!.content, "Write the digest");
    const after = await jobs(box, ["status", "--json"]);
    assert.equal(JSON.parse(after.stdout).daemon.running, false);
    assert.match(
      JSON.parse(after.stdout).notes[0],
      /^daemon not running: 1 approved job will not fire/,
    );
    // The model's summary of the last run; a run that SIGTERM cut off while it was being summarized
    // adds its fallback entry instead (run_memory.ts).
    const memory = await Deno.readTextFile(`${box.worktree}/.svc/jobs/digest.memory.md`);
    assert.match(memory, /^memory after \d+\n(\nRun \S+Z: (verified|failed)(: .*)?\n)?$/);
  } finally {
    await fake.close();
  }
});

Deno.test("svc jobs stop from another process cancels the run in progress within seconds; the attempt is saved as cancelled", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider((body: Body) =>
    body.stream === false ? { text: "memory" } : { stall: true, text: "partial" }
  );
  try {
    await useProvider(box, fake);
    await jobs(box, ["add", "long", "--prompt", "go", "--timeout", "60"]);
    const run = spawnSvc(["jobs", "--path", box.worktree, "run", "long", "--verbose"], {
      cwd: box.worktree,
      env: box.env,
    });
    await until(async () => (await job(box, "long")).state === "executing", 15_000, "executing");
    const stopped = performance.now();
    const stop = await jobs(box, ["stop", "long"]);
    assert.equal(stop.code, 0, stop.stderr);
    const [status, stderr] = await Promise.all([
      run.status,
      new Response(run.stderr).text(),
      run.stdout.cancel(),
    ]);
    const elapsed = performance.now() - stopped;
    assert.equal(status.code, 1, stderr);
    assert.ok(elapsed < 10_000, `the run ended ${elapsed} ms after stop`);
    assert.match(stderr, /job long: disabled while running: cancelling the attempt/);
    const long = await job(box, "long");
    assert.deepEqual(
      long.history.map((a: Record<string, unknown>) => [a.attempt, a.status, a.error]),
      [[1, "cancelled", "cancelled: the run was stopped"]],
    );
    assert.deepEqual([long.enabled, long.fired], [false, { ok: 0, failed: 1 }]);
  } finally {
    await fake.close();
  }
});

Deno.test("svc jobs run: a deleted task file fails the run with 'task file not found'", async () => {
  await using box = await sandbox();
  const fake = await scripted();
  try {
    await useProvider(box, fake);
    await jobs(box, ["add", "notes", "--prompt", "go"]);
    const first = await jobs(box, ["run", "notes"]);
    assert.deepEqual([first.code, first.stdout], [0, "answer 1\n"], first.stderr);
    await Deno.remove(`${box.worktree}/.svc/jobs/notes.md`);
    const out = await jobs(box, ["run", "notes", "--json"]);
    assert.equal(out.code, 1);
    const report = JSON.parse(out.stdout);
    assert.deepEqual([report.state, report.error, report.verified], [
      "failed",
      "task file not found",
      false,
    ]);
    const notes = await job(box, "notes");
    assert.deepEqual([notes.last_error, notes.fired], ["task file not found", {
      ok: 1,
      failed: 1,
    }]);
    const show = await jobs(box, ["show", "notes"]);
    assert.match(show.stdout, /last error: task file not found/);
    assert.match(
      show.stdout,
      /memory: .*notes\.memory\.md\n {2}memory after 1\n {2}\n {2}Run .*: failed: task file not found\n/,
    );
  } finally {
    await fake.close();
  }
});

Deno.test("eight svc jobs add processes writing the register at once all land in it", async () => {
  await using box = await sandbox();
  const names = Array.from({ length: 8 }, (_, i) => `w${i}`);
  const results = await Promise.all(
    names.map((name) => jobs(box, ["add", name, "--prompt", "x", "--every", "60"])),
  );
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((await register(box)).map((j) => j.name), names);
});

Deno.test("svc jobs: edit without an editor, unknown job, --print-unit, stop and enable", async () => {
  await using box = await sandbox();
  await jobs(box, ["add", "u", "--prompt", "x", "--cron", "0 9 * * 1-5"]);
  const edit = await jobs(box, ["edit", "u"], { HOME: box.home, NO_COLOR: "1" });
  assert.equal(edit.code, 1);
  assert.match(edit.stderr, /no editor: set VISUAL or EDITOR/);
  const unknown = await jobs(box, ["approve", "nope"]);
  assert.deepEqual([unknown.code, unknown.stderr.trim()], [
    1,
    'svc jobs: no job named "nope" (jobs: u); add it with svc jobs add nope',
  ]);
  const unit = await jobs(box, ["daemon", "--print-unit", "--tick", "30"]);
  assert.equal(unit.code, 0);
  // This svc runs the daemon: here the Deno binary running the main module the test spawned
  // (main.ts, or the test bundle's main.js), never the deno on PATH.
  const main = TEST_BUILD.prefix.at(-1)!;
  const self = [Deno.execPath(), "run", ...SVC_PERMISSIONS, ...SVC_V8_FLAGS, "--quiet", main];
  assert.ok(
    unit.stdout.includes(
      `\nExecStart=${self.join(" ")} jobs --path ${box.worktree} daemon --tick 30\n`,
    ),
    unit.stdout,
  );
  assert.match(unit.stdout, /\[Install\]\nWantedBy=default.target/);
  assert.equal((await jobs(box, ["stop", "u"])).code, 0);
  assert.deepEqual([(await job(box, "u")).enabled, (await job(box, "u")).next_run_at], [
    false,
    null,
  ]);
  const list = JSON.parse((await jobs(box, ["list", "--json"])).stdout);
  assert.equal(list[0].state, "disabled");
  assert.equal((await jobs(box, ["enable", "u"])).code, 0);
  assert.equal((await job(box, "u")).enabled, true);
  assert.ok(new Date((await job(box, "u")).next_run_at).getTime() > Date.now());
  const usage = await jobs(box, ["add", "v", "--every", "0", "--prompt", "x"]);
  assert.deepEqual([usage.code, usage.stderr.trim()], [
    2,
    "svc jobs: --every takes a whole number of 1 or more",
  ]);
});
