/** The job state machine with an injected clock: every transition of SPEC's table. */
import assert from "node:assert/strict";
import type { Approval, Grant } from "../../src/jobs/approvals.ts";
import { type Job, JobSchema } from "../../src/jobs/schema.ts";
import {
  approveJob,
  disableJob,
  enableJob,
  finishRun,
  isDue,
  reconcile,
  rejectJob,
  shownState,
  startRun,
} from "../../src/jobs/states.ts";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const grant: Grant = { hash: "h", uid: 0, approved_at: T0.toISOString(), once: false };
const APPROVED: Approval = { kind: "approved", grant };
const ARMED: Approval = { kind: "armed", grant: { ...grant, once: true } };
const NONE: Approval = { kind: "none" };
const CHANGED: Approval = { kind: "changed", grant };

function newJob(extra: Partial<Job> = {}): Job {
  return JobSchema.parse({
    name: "j",
    prompt: "go",
    task_file: ".svc/jobs/j.md",
    schedule: { every: 60 },
    created_at: T0.toISOString(),
    ...extra,
  });
}

const ok = { verified: true, timedOut: false, output: "done", error: null, session: "s1" };

Deno.test("a new job is proposed and never due; approve makes it will_run with next_run_at strictly after now", () => {
  const job = newJob();
  assert.deepEqual([job.state, shownState(job, NONE), job.next_run_at], [
    "proposed",
    "proposed",
    null,
  ]);
  assert.equal(isDue(job, { approval: NONE, now: at(3600) }), false);
  approveJob(job, at(5));
  assert.deepEqual([job.state, job.next_run_at], ["will_run", at(65).toISOString()]);
  assert.equal(isDue(job, { approval: APPROVED, now: at(64) }), false);
  assert.equal(isDue(job, { approval: APPROVED, now: at(65) }), true);
  // The daemon never approves: without this user's grant the register's state does not count.
  assert.equal(isDue(job, { approval: NONE, now: at(65) }), false);
  assert.equal(shownState(job, NONE), "proposed");
  assert.equal(isDue(job, { approval: CHANGED, now: at(65) }), false);
});

Deno.test("executing, then verified or failed or timeout, each recomputing next_run_at strictly after the end", () => {
  const job = newJob();
  approveJob(job, T0);
  const run = startRun(job, { now: at(60), by: "daemon", session: "s1" });
  assert.deepEqual([run, job.state, job.history.length], [1, "executing", 1]);
  assert.equal(isDue(job, { approval: APPROVED, now: at(200) }), false);
  finishRun(job, { outcome: ok, now: at(75) });
  assert.deepEqual(
    [job.state, job.fired, job.next_run_at, job.last_output],
    ["verified", { ok: 1, failed: 0 }, at(120).toISOString(), "done"],
  );
  startRun(job, { now: at(120), by: "daemon", session: "s2" });
  // A run that ends after three missed slots: the next slot after now, none replayed.
  finishRun(job, { outcome: { ...ok, verified: false, error: "boom" }, now: at(310) });
  assert.deepEqual(
    [job.state, job.fired, job.last_error, job.next_run_at],
    ["failed", { ok: 1, failed: 1 }, "boom", at(360).toISOString()],
  );
  startRun(job, { now: at(360), by: "daemon", session: "s3" });
  finishRun(job, {
    outcome: { ...ok, verified: false, timedOut: true, error: "timeout" },
    now: at(370),
  });
  assert.deepEqual([job.state, job.fired.failed], ["timeout", 2]);
  assert.equal(shownState(job, APPROVED), "timeout");
});

Deno.test("require_approval: parks in waiting_approval after each run; approve arms exactly one run; reject clears the grant", () => {
  const job = newJob({ require_approval: true });
  approveJob(job, T0);
  // Its grant is a one-run grant (armed); a standing grant does not fire it.
  assert.equal(isDue(job, { approval: APPROVED, now: at(60) }), false);
  assert.equal(isDue(job, { approval: ARMED, now: at(60) }), true);
  startRun(job, { now: at(60), by: "daemon", session: "s1" });
  finishRun(job, { outcome: ok, now: at(61) });
  assert.deepEqual([job.state, job.fired.ok], ["waiting_approval", 1]);
  // The grant was used by that run: nothing is due, however long we wait.
  assert.equal(isDue(job, { approval: NONE, now: at(10_000) }), false);
  assert.equal(shownState(job, NONE), "waiting_approval");
  approveJob(job, at(100));
  assert.equal(job.state, "will_run");
  assert.equal(isDue(job, { approval: ARMED, now: at(120) }), true);
  rejectJob(job);
  assert.equal(job.state, "proposed");
  assert.equal(isDue(job, { approval: NONE, now: at(120) }), false);
});

Deno.test("approve after the job's next run has passed moves it strictly after now, keeping an interval's grid", () => {
  const job = newJob({ require_approval: true });
  approveJob(job, T0);
  startRun(job, { now: at(60), by: "daemon", session: "s1" });
  finishRun(job, { outcome: ok, now: at(61) });
  assert.equal(job.next_run_at, at(120).toISOString());
  // Approved an hour later: the next run is the grid's next slot, not 120 s (which fires at once).
  approveJob(job, at(3630));
  assert.deepEqual([job.state, job.next_run_at], ["will_run", at(3660).toISOString()]);
  assert.equal(isDue(job, { approval: ARMED, now: at(3630) }), false);
  const daily = newJob({ schedule: { cron: "0 9 * * *" }, next_run_at: T0.toISOString() });
  approveJob(daily, at(3600));
  assert.equal(daily.next_run_at, "2026-01-01T09:00:00.000Z");
});

Deno.test("disable (stop) stops firing; enable re-arms strictly after now; a one-shot disables itself after its run", () => {
  const job = newJob();
  approveJob(job, T0);
  disableJob(job);
  assert.deepEqual([job.enabled, job.next_run_at, shownState(job, APPROVED)], [
    false,
    null,
    "disabled",
  ]);
  assert.equal(isDue(job, { approval: APPROVED, now: at(1000) }), false);
  enableJob(job, at(1000));
  assert.deepEqual([job.enabled, job.next_run_at], [true, at(1060).toISOString()]);
  const once = newJob({ schedule: { at: at(30).toISOString() } });
  approveJob(once, T0);
  assert.equal(once.next_run_at, at(30).toISOString());
  startRun(once, { now: at(30), by: "daemon", session: "s" });
  finishRun(once, { outcome: ok, now: at(31) });
  assert.deepEqual([once.state, once.enabled, once.next_run_at], ["verified", false, null]);
});

Deno.test("a manual run of any state executes; the history keeps the last 100 runs", () => {
  const job = newJob();
  for (let i = 0; i < 105; i++) {
    startRun(job, { now: at(i), by: "manual", session: `s${i}` });
    finishRun(job, { outcome: ok, now: at(i) });
  }
  assert.equal(job.runs, 105);
  assert.equal(job.history.length, 100);
  assert.deepEqual([job.history[0].run, job.history.at(-1)!.run], [6, 105]);
});

Deno.test("reconcile: a run left executing by a dead process fails as interrupted; at startup missed windows are skipped and a missed one-shot disables itself", () => {
  const job = newJob();
  approveJob(job, T0);
  startRun(job, { now: at(60), by: "daemon", session: "s1" });
  assert.equal(
    reconcile(job, { approval: APPROVED, now: at(61), running: true, startup: false, graceMs: 0 }),
    false,
  );
  assert.equal(
    reconcile(job, { approval: APPROVED, now: at(61), running: false, startup: false, graceMs: 0 }),
    true,
  );
  assert.deepEqual(
    [job.state, job.fired.failed, job.history[0].status],
    ["failed", 1, "cancelled"],
  );
  assert.match(job.last_error!, /^interrupted/);
  const idle = newJob();
  approveJob(idle, T0); // next at 60
  reconcile(idle, {
    approval: APPROVED,
    now: at(1000),
    running: false,
    startup: true,
    graceMs: 15_000,
  });
  assert.equal(idle.next_run_at, at(1020).toISOString());
  assert.equal(isDue(idle, { approval: APPROVED, now: at(1000) }), false);
  const once = newJob({ schedule: { at: at(30).toISOString() } });
  approveJob(once, T0);
  reconcile(once, {
    approval: APPROVED,
    now: at(1000),
    running: false,
    startup: true,
    graceMs: 15_000,
  });
  assert.deepEqual([once.enabled, once.next_run_at], [false, null]);
  assert.match(once.last_error!, /^missed: no daemon was running/);
  // A definition changed since approval goes back to proposed.
  const changed = newJob();
  approveJob(changed, T0);
  reconcile(changed, { approval: CHANGED, now: at(1), running: false, startup: false, graceMs: 0 });
  assert.equal(changed.state, "proposed");
});

Deno.test("reconcile: a next run more than one period from now moves back onto the schedule (an interval keeps its grid); one within it, or a one-shot, stays", () => {
  const reconciled = (job: Job, now: Date) => {
    reconcile(job, { approval: APPROVED, now, running: false, startup: false, graceMs: 0 });
    return job.next_run_at;
  };
  const every = newJob({ next_run_at: at(86400 + 30).toISOString() });
  assert.equal(reconciled(every, at(10)), at(30).toISOString());
  const onTime = newJob({ next_run_at: at(70).toISOString() });
  assert.equal(reconciled(onTime, at(10)), at(70).toISOString());
  const cron = newJob({ schedule: { cron: "*/5 * * * *" }, next_run_at: at(86400).toISOString() });
  assert.equal(reconciled(cron, at(0)), at(300).toISOString());
  const once = newJob({
    schedule: { at: at(864000).toISOString() },
    next_run_at: at(864000).toISOString(),
  });
  assert.equal(reconciled(once, at(0)), at(864000).toISOString());
});
