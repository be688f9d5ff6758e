/**
 * One job run (`runJob`, as `svc jobs run` and the daemon start it) on fake time, in-process with
 * the real runtime and engine against the scripted provider: retries with exponential backoff,
 * the per-attempt timeout, attempts that cannot be retried. Backoff and timeout wait on the fake
 * clock, so the tests move the time instead of sleeping.
 */
import assert from "node:assert/strict";
import { jobRows } from "../../src/jobs/status.ts";
import { at, iso, world } from "./_world.ts";

Deno.test("failed attempts are retried after an exponential backoff of 1, 2, 4 s, all in the run's one session, then the run fails", async () => {
  await using w = await world({ reply: () => ({ status: 500, body: "down" }) });
  await w.add("flaky", { retries: 3, schedule: null });
  const running = w.run("flaky");
  const backoffs = [];
  for (let i = 0; i < 3; i++) backoffs.push(await w.clock.next("backoff"));
  assert.deepEqual(backoffs, [at(1), at(3), at(7)]);
  const report = await running;
  assert.ok(!("refused" in report));
  assert.deepEqual([report.state, report.error, report.attempts], [
    "failed",
    "generic returned HTTP 500: down",
    4,
  ]);
  const flaky = await w.job("flaky");
  assert.deepEqual(
    flaky.history.map((a) => [a.run, a.attempt, a.status, a.started_at, a.by]),
    [
      [1, 1, "error", iso(0), "manual"],
      [1, 2, "error", iso(1), "manual"],
      [1, 3, "error", iso(3), "manual"],
      [1, 4, "error", iso(7), "manual"],
    ],
  );
  assert.equal(new Set(flaky.history.map((a) => a.session)).size, 1);
  assert.deepEqual([flaky.state, flaky.fired, flaky.last_error], [
    "failed",
    { ok: 0, failed: 1 },
    "generic returned HTTP 500: down",
  ]);
  assert.deepEqual(w.clock.pending(), []);
});

Deno.test("attempts that time out are retried with backoff in one session, then the run ends in timeout; a manual run approves the proposed job", async () => {
  await using w = await world({
    reply: (body) => body.stream === false ? { status: 500 } : { stall: true, text: "partial" },
  });
  await w.add("slow", { retries: 1, timeout: 30, schedule: null });
  const running = w.run("slow");
  await w.streamed(1);
  assert.deepEqual(await w.clock.next("timeout"), at(30));
  assert.deepEqual(await w.clock.next("backoff"), at(31));
  await w.streamed(2);
  assert.deepEqual(await w.clock.next("timeout"), at(61));
  const report = await running;
  assert.ok(!("refused" in report));
  assert.deepEqual([report.state, report.error, report.attempts], [
    "timeout",
    "timeout: the attempt ran over 30 s",
    2,
  ]);
  const slow = await w.job("slow");
  assert.deepEqual(
    slow.history.map((a) => [a.run, a.attempt, a.status, a.started_at, a.ended_at, a.by]),
    [
      [1, 1, "timeout", iso(0), iso(30), "manual"],
      [1, 2, "timeout", iso(31), iso(61), "manual"],
    ],
  );
  assert.equal(slow.history[0].session, slow.history[1].session);
  assert.deepEqual([slow.state, slow.fired], ["timeout", { ok: 0, failed: 1 }]);
  // The summary request failed: the fallback entry is the memory.
  assert.equal(
    await Deno.readTextFile(`${w.worktree}/.svc/jobs/slow.memory.md`),
    `Run ${iso(61)}: failed: timeout: the attempt ran over 30 s\n`,
  );
  assert.deepEqual((await jobRows(w.worktree)).map((r) => [r.state, r.approval]), [
    ["timeout", "approved"],
  ]);
});

Deno.test("an attempt whose engine cannot be built fails the run at once, without retries or backoff", async () => {
  await using w = await world();
  await w.add("odd", { retries: 3, schedule: null, provider: "no-such-provider" });
  const report = await w.run("odd");
  assert.ok(!("refused" in report));
  // The list of known providers it names depends on the plugins: only its start is pinned.
  const unknown = report.error ?? "";
  assert.match(unknown, /^Unknown provider no-such-provider: choose one of /);
  assert.deepEqual([report.state, report.attempts], ["failed", 1]);
  const odd = await w.job("odd");
  assert.deepEqual(odd.history.map((a) => [a.attempt, a.status, a.error]), [
    [1, "error", unknown],
  ]);
  assert.deepEqual([w.clock.pending(), w.fake.requests.length], [[], 0]);
});

Deno.test("in an untrusted worktree a task file that leads outside it (../ path, absolute path or link) is not read: the run fails and nothing reaches the provider", async () => {
  await using w = await world({ trusted: false });
  const secret = `${w.home}/.config/svc/providers.json`;
  await Deno.writeTextFile(secret, JSON.stringify({ generic: { api_key: "sk-SECRET-36-5" } }));
  await Deno.mkdir(`${w.worktree}/.svc/jobs`, { recursive: true });
  await Deno.symlink(secret, `${w.worktree}/.svc/jobs/linked.md`);
  const relativePath = `../${w.home.split("/").at(-1)}/.config/svc/providers.json`;
  const cases = { dotdot: relativePath, absolute: secret, linked: ".svc/jobs/linked.md" };
  for (const [name, task_file] of Object.entries(cases)) {
    await w.add(name, { task_file, schedule: null });
    const report = await w.run(name);
    assert.ok(!("refused" in report));
    assert.equal(report.state, "failed");
    assert.match(report.error ?? "", /leads outside the worktree .*svc trust/);
  }
  const sent = JSON.stringify(w.fake.requests.map((r) => r.body));
  assert.ok(!sent.includes("sk-SECRET-36-5"));
  assert.equal(w.fake.requests.filter((r) => r.body.stream !== false).length, 0);
  // A task file inside the worktree still runs there.
  await w.add("inside", { schedule: null });
  const inside = await w.run("inside");
  assert.ok(!("refused" in inside));
  assert.equal(inside.state, "verified");
});

Deno.test("a job's turn limit ends its runaway run truncated; in an untrusted worktree it is kept only where lower than the config's", async () => {
  for (const trusted of [true, false]) {
    let round = 0;
    await using w = await world({
      trusted,
      reply: (body) =>
        body.stream === false ? { text: "memory" } : {
          tool_calls: [{ name: "list_dir", arguments: { path: "." }, id: `call_${++round}` }],
        },
    });
    const config = `${w.home}/.config/svc/config.json`;
    const global = JSON.parse(await Deno.readTextFile(config));
    await Deno.writeTextFile(config, JSON.stringify({ ...global, "limits.max_turns": 3 }));
    const rounds = async (name: string, max_turns: number) => {
      await w.add(name, { schedule: null, limits: { max_turns } }, true);
      const before = round;
      const report = await w.run(name);
      assert.ok(!("refused" in report));
      assert.deepEqual([report.state, report.reason], ["verified", "max_turns"]);
      assert.equal((await w.job(name)).history[0].reason, "max_turns");
      return round - before;
    };
    // Lower than the config's 3: kept wherever the register came from.
    assert.equal(await rounds("low", 1), 1);
    // Higher: the user's own register raises it; a cloned one cannot.
    assert.equal(await rounds("high", 5), trusted ? 5 : 3, `trusted: ${trusted}`);
  }
});
