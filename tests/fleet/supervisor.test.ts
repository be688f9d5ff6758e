/**
 * The supervisor's state machine (SPEC, Fleet agent) in-process on fake time: fake processes,
 * a fake clock, fake /health answers and port probe; the roster and state file are real files.
 * The real-process smoke test is in fleet_e2e.test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AgentStatus, readState } from "../../src/fleet/mod.ts";
import { newStatus } from "../../src/fleet/state.ts";
import { fakeFleet } from "./_fake_fleet.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();
/** Fake time since T0. */
const at = (clock: { now(): number }) => clock.now() - T0;

/** A status with the fields a test does not name as a fresh agent has them. */
function status(root: string, name: string, fields: Partial<AgentStatus>): AgentStatus {
  return { ...newStatus(name, join(root, name)), ...fields };
}

Deno.test("a started agent is starting until /health first answers, then running and healthy; it gets its port and the three SVC_FLEET_* variables", async () => {
  await using fleet = await fakeFleet([{ name: "alpha" }]);
  await fleet.sweep();
  const agent = fleet.processes.of("alpha");
  const dir = join(fleet.root, "alpha");
  const starting = {
    state: "starting" as const,
    pid: 4000,
    start_time: "t4000",
    port: 8780,
    started_at: iso(0),
  };
  assert.deepEqual(fleet.status("alpha"), status(fleet.root, "alpha", starting));
  assert.deepEqual(agent.cwd, dir);
  assert.deepEqual(agent.env, {
    HOME: "/nonexistent",
    SVC_FLEET_PORT: "8780",
    SVC_FLEET_DIR: dir,
    SVC_FLEET_AGENT: "alpha",
  });
  assert.deepEqual(agent.line.args.slice(-7), [
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    "8780",
    "--path",
    dir,
  ]);

  agent.health = { ok: false, reason: "/health failed: Connection refused" };
  await fleet.after(2000);
  assert.deepEqual(
    fleet.status("alpha"),
    status(fleet.root, "alpha", starting),
    "a starting agent's failed probes do not count",
  );
  agent.health = { ok: true };
  await fleet.after(2000);
  assert.deepEqual(
    fleet.status("alpha"),
    status(fleet.root, "alpha", {
      ...starting,
      state: "running",
      health: "healthy",
      healthy_since: iso(4000),
    }),
  );
  assert.ok(fleet.lines.includes("svc fleet: alpha: healthy on port 8780"), fleet.lines.join("\n"));
  const { state } = await readState(fleet.root);
  assert.deepEqual(state.agents.alpha, fleet.status("alpha"), "the state file says the same");
});

Deno.test("an agent that never answers /health within the start timeout is stopped as a failure and waits its backoff", async () => {
  await using fleet = await fakeFleet([{ name: "mute" }], { startTimeoutMs: 60_000 });
  await fleet.sweep();
  const agent = fleet.processes.of("mute");
  agent.health = { ok: false, reason: "/health failed: Connection refused" };
  await fleet.after(59_999);
  assert.equal(fleet.status("mute").state, "starting");
  await fleet.after(1);
  assert.equal(agent.stoppedBy, "SIGINT");
  assert.deepEqual(
    fleet.status("mute"),
    status(fleet.root, "mute", {
      state: "backoff",
      port: 8780,
      restarts: 1,
      backoff_failures: 1,
      started_at: iso(0),
      next_retry_at: iso(60_000 + 5_000),
      last_exit: { code: 0, signal: null, at: iso(60_000) },
      last_error: "did not answer /health within 60 s of starting",
    }),
  );
});

Deno.test("a running agent that fails unhealthy_threshold consecutive probes is stopped and started again after its backoff on the same port", async () => {
  await using fleet = await fakeFleet([{ name: "flaky" }]);
  await fleet.sweep();
  await fleet.after(2000);
  const first = fleet.processes.of("flaky");
  first.health = { ok: false, reason: "/health answered 503" };
  await fleet.after(2000);
  const running = { pid: 4000, start_time: "t4000", port: 8780, started_at: iso(0) };
  assert.deepEqual(
    fleet.status("flaky"),
    status(fleet.root, "flaky", {
      ...running,
      state: "running",
      health: "unhealthy",
      probe_failures: 1,
      healthy_since: iso(2000),
      last_error: "/health answered 503",
    }),
  );
  first.health = { ok: true };
  await fleet.after(2000);
  assert.deepEqual(
    [fleet.status("flaky").health, fleet.status("flaky").probe_failures],
    ["healthy", 0],
    "a healthy answer resets the count: the failures must be consecutive",
  );
  first.health = { ok: false, reason: "/health answered 503" };
  await fleet.after(2000);
  await fleet.after(2000);
  assert.deepEqual([first.alive, first.stoppedBy], [false, "SIGINT"]);
  assert.deepEqual(
    fleet.status("flaky"),
    status(fleet.root, "flaky", {
      state: "backoff",
      port: 8780,
      restarts: 1,
      backoff_failures: 1,
      started_at: iso(0),
      next_retry_at: iso(10_000 + 5_000),
      last_exit: { code: 0, signal: null, at: iso(10_000) },
      last_error: "2 consecutive health probes failed (/health answered 503)",
    }),
  );
  await fleet.after(4999);
  assert.deepEqual([fleet.status("flaky").state, fleet.processes.starts("flaky")], ["backoff", 1]);
  await fleet.after(1);
  assert.deepEqual(
    fleet.status("flaky"),
    status(fleet.root, "flaky", {
      state: "starting",
      pid: 4001,
      start_time: "t4001",
      port: 8780,
      restarts: 1,
      backoff_failures: 1,
      started_at: iso(15_000),
      last_exit: { code: 0, signal: null, at: iso(10_000) },
      last_error: "2 consecutive health probes failed (/health answered 503)",
    }),
  );
});

Deno.test("a crashing agent is restarted after a backoff of 5 s doubling to the 60 s cap, on the same port, its process group killed after each exit", async () => {
  await using fleet = await fakeFleet([{ name: "solo", max_restarts: 0 }]);
  await fleet.sweep();
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    const agent = fleet.processes.of("solo");
    await agent.exit({ code: null, signal: "SIGKILL" });
    const waiting = fleet.status("solo");
    assert.deepEqual(
      [waiting.state, waiting.pid, waiting.restarts, waiting.last_error, waiting.last_exit],
      ["backoff", null, i + 1, "exited on SIGKILL", {
        code: null,
        signal: "SIGKILL",
        at: iso(at(fleet.clock)),
      }],
    );
    const delay = Date.parse(waiting.next_retry_at!) - fleet.clock.now();
    delays.push(delay);
    await fleet.after(delay - 1);
    assert.deepEqual([fleet.status("solo").state, fleet.processes.starts("solo")], [
      "backoff",
      i + 1,
    ]);
    await fleet.after(1);
    const again = fleet.status("solo");
    assert.deepEqual([again.state, again.port, fleet.processes.starts("solo")], [
      "starting",
      8780,
      i + 2,
    ]);
  }
  assert.deepEqual(delays, [5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  assert.deepEqual(fleet.processes.killedGroups, [4000, 4001, 4002, 4003, 4004, 4005, 4006]);
});

Deno.test("an agent healthy for the backoff cap starts its backoff over: its next crash waits 5 s again", async () => {
  await using fleet = await fakeFleet([{ name: "solo" }]);
  await fleet.sweep();
  for (let i = 0; i < 3; i++) {
    await fleet.processes.of("solo").exit({ code: 1, signal: null });
    await fleet.after(Date.parse(fleet.status("solo").next_retry_at!) - fleet.clock.now());
  }
  assert.equal(fleet.status("solo").backoff_failures, 3);
  await fleet.after(2000); // healthy from here
  await fleet.after(59_999);
  assert.equal(fleet.status("solo").backoff_failures, 3, "not yet stable");
  await fleet.after(1);
  assert.deepEqual([fleet.status("solo").backoff_failures, fleet.status("solo").restarts], [0, 3]);
  await fleet.processes.of("solo").exit({ code: 1, signal: null });
  assert.equal(Date.parse(fleet.status("solo").next_retry_at!) - fleet.clock.now(), 5_000);
});

Deno.test("past max_restarts the agent is crashed and left alone; fleet restart relaunches it with its restart count and backoff reset", async () => {
  await using fleet = await fakeFleet([{ name: "crasher", max_restarts: 2 }]);
  await fleet.sweep();
  for (let i = 0; i < 3; i++) {
    await fleet.processes.of("crasher").exit({ code: 3, signal: null });
    if (i < 2) {
      await fleet.after(Date.parse(fleet.status("crasher").next_retry_at!) - fleet.clock.now());
    }
  }
  const now = at(fleet.clock);
  const crashed = status(fleet.root, "crasher", {
    state: "crashed",
    port: 8780,
    restarts: 2,
    backoff_failures: 3,
    started_at: iso(now),
    last_exit: { code: 3, signal: null, at: iso(now) },
    last_error: "exited with code 3",
  });
  assert.deepEqual(fleet.status("crasher"), crashed);
  assert.ok(
    fleet.lines.includes(
      "svc fleet: crasher: crashed: exited with code 3; 2 restarts used, left alone until svc fleet restart crasher",
    ),
    fleet.lines.join("\n"),
  );
  for (let i = 0; i < 30; i++) await fleet.after(120_000); // an hour of sweeps
  assert.deepEqual(fleet.status("crasher"), crashed);
  assert.equal(fleet.processes.starts("crasher"), 3, "the first start and 2 restarts");

  await fleet.requestRestart("crasher");
  await fleet.sweep();
  const later = at(fleet.clock);
  assert.deepEqual(
    fleet.status("crasher"),
    status(fleet.root, "crasher", {
      state: "starting",
      pid: 4003,
      start_time: "t4003",
      port: 8780,
      started_at: iso(later),
      last_exit: { code: 3, signal: null, at: iso(now) },
    }),
  );
  assert.deepEqual((await readState(fleet.root)).state.requests, [], "the request was taken");
});

Deno.test("fleet restart of a running agent stops it with SIGINT and starts it again with its restart count and backoff reset", async () => {
  await using fleet = await fakeFleet([{ name: "busy" }]);
  await fleet.sweep();
  await fleet.processes.of("busy").exit({ code: 1, signal: null });
  await fleet.after(5_000);
  await fleet.after(2_000);
  const before = fleet.status("busy");
  assert.deepEqual([before.state, before.restarts, before.backoff_failures], ["running", 1, 1]);
  const old = fleet.processes.of("busy");
  await fleet.requestRestart("busy");
  await fleet.sweep();
  assert.deepEqual([old.alive, old.stoppedBy], [false, "SIGINT"]);
  assert.deepEqual(
    fleet.status("busy"),
    status(fleet.root, "busy", {
      port: 8780,
      started_at: iso(5_000),
      last_exit: { code: 0, signal: null, at: iso(7_000) },
    }),
  );
  await fleet.sweep();
  const after = fleet.status("busy");
  assert.deepEqual([after.state, after.pid, after.restarts, after.backoff_failures], [
    "starting",
    4002,
    0,
    0,
  ]);
});

Deno.test("an agent disabled in the roster is stopped with SIGINT and left alone; enabled again it starts with its counters reset", async () => {
  await using fleet = await fakeFleet([{ name: "keep" }, { name: "pause" }]);
  await fleet.sweep();
  await fleet.processes.of("pause").exit({ code: 1, signal: null });
  await fleet.after(5_000);
  await fleet.after(2_000);
  const keep = fleet.status("keep");
  const pause = fleet.processes.of("pause"); // the two launched together: either may be first
  const pausePort = fleet.status("pause").port;
  assert.deepEqual([fleet.status("pause").state, fleet.status("pause").restarts], ["running", 1]);

  await fleet.roster([{ name: "keep" }, { name: "pause", enabled: false }]);
  await fleet.sweep();
  assert.deepEqual([pause.alive, pause.stoppedBy], [false, "SIGINT"]);
  const disabled = status(fleet.root, "pause", {
    state: "disabled",
    port: pausePort,
    restarts: 1,
    backoff_failures: 1,
    started_at: iso(5_000),
    last_exit: { code: 0, signal: null, at: iso(7_000) },
    last_error: "exited with code 1",
  });
  assert.deepEqual(fleet.status("pause"), disabled);
  for (let i = 0; i < 10; i++) await fleet.after(60_000);
  assert.deepEqual(fleet.status("pause"), disabled);
  assert.equal(fleet.processes.starts("pause"), 2);
  assert.deepEqual(
    [fleet.status("keep").state, fleet.status("keep").pid],
    ["running", keep.pid],
    "the other agent is not touched",
  );

  await fleet.roster([{ name: "keep" }, { name: "pause" }]);
  await fleet.sweep();
  const again = fleet.status("pause");
  assert.deepEqual(
    [again.state, again.pid, again.restarts, again.backoff_failures, again.last_error],
    ["starting", 4003, 0, 0, null],
  );
});

Deno.test("an agent removed from the roster is stopped with SIGINT and dropped from the state file", async () => {
  await using fleet = await fakeFleet([{ name: "stay" }, { name: "gone" }]);
  await fleet.sweep();
  await fleet.after(2000);
  const gone = fleet.processes.of("gone");
  const stay = fleet.processes.of("stay").pid; // the two launched together: either may be first
  await fleet.roster([{ name: "stay" }]);
  await fleet.sweep();
  assert.deepEqual([gone.alive, gone.stoppedBy], [false, "SIGINT"]);
  assert.deepEqual(fleet.supervisor.statuses().map((s) => s.name), ["stay"]);
  await fleet.sweep();
  assert.deepEqual(Object.keys((await readState(fleet.root)).state.agents), ["stay"]);
  assert.equal(fleet.processes.of("stay").pid, stay, "the other agent is not touched");
});

Deno.test("a roster edit of an agent's prefer_port restarts it on that port, not counted as a failure", async () => {
  await using fleet = await fakeFleet([{ name: "mover" }]);
  await fleet.sweep();
  await fleet.after(2000);
  const old = fleet.processes.of("mover");
  await fleet.roster([{ name: "mover", prefer_port: 8782 }]);
  await fleet.sweep();
  assert.deepEqual([old.alive, old.stoppedBy, fleet.status("mover").state], [
    false,
    "SIGINT",
    "stopped",
  ]);
  await fleet.sweep();
  const moved = fleet.status("mover");
  assert.deepEqual([moved.state, moved.port, moved.restarts, moved.last_error], [
    "starting",
    8782,
    0,
    null,
  ]);
});

Deno.test("with every port of the range taken the agent waits in backoff with a clear error, not counted as a restart, and starts once one is free", async () => {
  await using fleet = await fakeFleet([{ name: "squeezed" }], {
    ports: { first: 8780, last: 8780 },
  });
  fleet.busy.add(8780);
  await fleet.sweep();
  const error = "no free port in 8780-8780: every one is in use; stop what holds them, give " +
    "the agent a free prefer_port (svc fleet add --port), or set SVC_FLEET_PORT_RANGE to a " +
    "wider range";
  const waiting = status(fleet.root, "squeezed", {
    state: "backoff",
    backoff_failures: 1,
    next_retry_at: iso(5_000),
    last_error: error,
  });
  assert.deepEqual(fleet.status("squeezed"), waiting);
  await fleet.after(5_000);
  assert.deepEqual(
    fleet.status("squeezed"),
    { ...waiting, backoff_failures: 2, next_retry_at: iso(15_000) },
    "still no port: the wait doubles",
  );
  fleet.busy.delete(8780);
  await fleet.after(10_000);
  const started = fleet.status("squeezed");
  assert.deepEqual([started.state, started.port, started.restarts], ["starting", 8780, 0]);
  assert.equal(fleet.processes.starts("squeezed"), 1);
});

Deno.test("a supervisor started again adopts the live agents an earlier one left instead of starting them twice, and sees an adopted agent's exit by its pid", async () => {
  await using fleet = await fakeFleet([{ name: "one" }, { name: "two" }]);
  await fleet.sweep();
  await fleet.after(2000);
  const before = fleet.supervisor.statuses();
  await fleet.restartSupervisor();
  for (const s of before) {
    assert.ok(
      fleet.lines.includes(`svc fleet: ${s.name}: adopted pid ${s.pid} on port ${s.port}`),
      fleet.lines.join("\n"),
    );
  }
  assert.deepEqual(
    fleet.supervisor.statuses(),
    before.map((s) => ({ ...s, health: "unknown" })),
    "adopted as they were, their health to be probed again",
  );
  await fleet.after(2000);
  assert.deepEqual(fleet.supervisor.statuses(), before);
  assert.deepEqual([fleet.processes.starts("one"), fleet.processes.starts("two")], [1, 1]);

  await fleet.processes.of("two").exit({ code: 1, signal: null });
  await fleet.after(2000);
  const two = fleet.status("two");
  assert.deepEqual(
    [two.state, two.pid, two.restarts, two.last_exit, two.last_error],
    [
      "backoff",
      null,
      1,
      { code: null, signal: null, at: iso(6_000) },
      "exited (adopted; its exit status is unknown)",
    ],
  );
  assert.deepEqual(
    fleet.processes.killedGroups,
    [],
    "an adopted agent's group is not this one's to kill",
  );
});

Deno.test("fleet down (the supervisor's run aborted) stops every agent with SIGINT and records them stopped and the supervisor gone", async () => {
  await using fleet = await fakeFleet([{ name: "a" }, { name: "b" }]);
  const controller = new AbortController();
  let sleeping = fleet.clock.waiting();
  const run = fleet.supervisor.run(controller.signal);
  await sleeping;
  await fleet.supervisor.settled();
  sleeping = fleet.clock.waiting();
  await fleet.clock.advance(2000); // the next sweep, 2 s later
  await sleeping;
  assert.deepEqual(fleet.supervisor.statuses().map((s) => [s.name, s.state, s.health]), [
    ["a", "running", "healthy"],
    ["b", "running", "healthy"],
  ]);
  assert.equal((await readState(fleet.root)).state.supervisor?.pid, Deno.pid);
  controller.abort();
  await run;
  assert.deepEqual(fleet.processes.agents.map((a) => [a.alive, a.stoppedBy]), [
    [false, "SIGINT"],
    [false, "SIGINT"],
  ]);
  const { state } = await readState(fleet.root);
  assert.equal(state.supervisor, null);
  assert.deepEqual(
    Object.values(state.agents).map((s) => [s.name, s.state, s.pid, s.next_retry_at]),
    [["a", "stopped", null, null], ["b", "stopped", null, null]],
  );
  assert.equal(fleet.lines.at(-1), `svc fleet: stopped; no agent of ${fleet.root} is running`);
});
