/**
 * `svc fleet` end to end: svc spawned as a user runs it (svc's permission set, never -A), real
 * `svc serve` agents, real signals, each test with its own port range and short timings.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentsOf, allRunning, groupMembers, processAlive, testFleet } from "./_fleet.ts";

const NAMES = ["alpha", "beta", "gamma"];

async function health(port: number): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  return await response.json();
}

async function waitGone(pids: number[], timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(processAlive);
  while (alive.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = pids.filter(processAlive);
  }
  return alive;
}

/** The pid `svc fleet up --detach` printed; fails with its exit code and both streams. */
function supervisorPid(up: { code: number; stdout: string; stderr: string }): number {
  const match = /supervisor started in the background \(pid (\d+)/.exec(up.stdout);
  assert.ok(match, `exit ${up.code}\nstdout: ${up.stdout}\nstderr: ${up.stderr}`);
  return Number(match[1]);
}

Deno.test(
  "fleet init, up --detach, status and down: three real svc serve agents run on ports of the range, answer /health, one supervisor per roster, and no process outlives down",
  async () => {
    await using fleet = await testFleet(NAMES, "28780-28789");
    const init = await fleet.svc(["fleet", "init"]);
    assert.equal(init.code, 0, init.stderr);
    assert.match(
      init.stdout,
      new RegExp(`^added alpha, beta, gamma to ${fleet.root}/\\.svc/fleet\\.json$`, "m"),
    );
    const up = await fleet.svc(["fleet", "up", "--detach"]);
    assert.equal(up.code, 0, up.stderr);
    const daemon = supervisorPid(up);
    const state = await fleet.waitFor("three healthy agents", allRunning(NAMES));
    const agents = agentsOf(state, NAMES);
    const ports = agents.map((a) => a.port!);
    assert.ok(ports.every((p) => p >= 28780 && p <= 28789), `ports ${ports}`);
    assert.equal(new Set(ports).size, 3);
    for (const port of ports) assert.deepEqual(await health(port), { status: "ok" });
    for (const agent of agents) {
      // Its own process group and session, and the three variables.
      assert.deepEqual(groupMembers(agent.pid!).includes(agent.pid!), true);
      const environ = Deno.readTextFileSync(`/proc/${agent.pid}/environ`).split("\0");
      assert.deepEqual(
        environ.filter((v) => v.startsWith("SVC_FLEET_")).sort(),
        [
          `SVC_FLEET_AGENT=${agent.name}`,
          `SVC_FLEET_DIR=${join(fleet.root, agent.name)}`,
          `SVC_FLEET_PORT=${agent.port}`,
        ],
      );
    }

    const second = await fleet.svc(["fleet", "up"]);
    assert.equal(second.code, 1);
    assert.match(
      second.stderr,
      new RegExp(
        `^svc fleet up: a fleet supervisor already runs for ${fleet.root} \\(pid ${daemon}, since `,
      ),
    );

    const table = await fleet.svc(["fleet", "status"]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0], new RegExp(`^supervisor: running \\(pid ${daemon}, since `));
    assert.deepEqual(lines[1].split(/\s{2,}/), [
      "NAME",
      "STATE",
      "HEALTH",
      "PID",
      "PORT",
      "RESTARTS",
      "LAST EXIT",
      "NEXT RETRY",
    ]);
    assert.deepEqual(
      lines.slice(2).map((line) => line.split(/\s+/)),
      agents.map((
        a,
      ) => [a.name, "running", "healthy", String(a.pid), String(a.port), "0/10", "-", "-"]),
    );
    assert.equal(lines.length, 5, "no notes: every folder is trusted and nothing failed");

    const json = await fleet.svc(["fleet", "status", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      JSON.parse(json.stdout),
      agents.map((a) => ({
        name: a.name,
        dir: join(fleet.root, a.name),
        enabled: true,
        pid: a.pid,
        port: a.port,
        state: "running",
        health: "healthy",
        restarts: 0,
        max_restarts: 10,
        last_exit: null,
        next_retry: null,
        last_error: null,
        trusted: true,
        log: join(fleet.root, a.name, ".svc", "logs", `${a.name}.log`),
      })),
    );

    const down = await fleet.svc(["fleet", "down"]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(down.stdout, `stopped the fleet supervisor (pid ${daemon})\n`);
    const pids = [daemon, ...agents.map((a) => a.pid!)];
    assert.deepEqual(await waitGone(pids), []);
    assert.deepEqual(agents.flatMap((a) => groupMembers(a.pid!)), []);
    const after = JSON.parse((await fleet.svc(["fleet", "status", "--json"])).stdout);
    assert.deepEqual(
      after.map((a: { state: string; pid: null }) => [a.state, a.pid]),
      [["stopped", null], ["stopped", null], ["stopped", null]],
    );
  },
);

Deno.test("an agent killed with SIGKILL is respawned after its backoff on the same port, counting one restart", async () => {
  await using fleet = await testFleet(["solo"], "28790-28799", { SVC_FLEET_BACKOFF: "1.5" });
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  assert.equal((await fleet.svc(["fleet", "up", "--detach"])).code, 0);
  const before = (await fleet.waitFor("solo running", allRunning(["solo"]))).agents.solo;
  Deno.kill(before.pid!, "SIGKILL");
  const waiting = (await fleet.waitFor("solo in backoff", (s) => s.agents.solo.state === "backoff"))
    .agents.solo;
  assert.deepEqual([waiting.pid, waiting.restarts, waiting.last_exit?.signal], [
    null,
    1,
    "SIGKILL",
  ]);
  assert.equal(waiting.last_error, "exited on SIGKILL");
  const after = (await fleet.waitFor(
    "solo running again",
    (s) => allRunning(["solo"])(s) && s.agents.solo.pid !== before.pid,
  )).agents.solo;
  assert.deepEqual([after.port, after.restarts], [before.port, 1]);
  const waited = Date.parse(after.started_at!) - Date.parse(after.last_exit!.at);
  assert.ok(waited >= 1400, `respawned ${waited} ms after the exit, before its 1.5 s backoff`);
  assert.deepEqual(await health(after.port!), { status: "ok" });
  const status = (await fleet.svc(["fleet", "status"])).stdout;
  assert.match(
    status,
    new RegExp(
      `^solo\\s+running\\s+healthy\\s+${after.pid}\\s+${after.port}\\s+1/10\\s+SIGKILL \\(\\d+ s ago\\)\\s+-$`,
      "m",
    ),
  );
});

Deno.test("an agent whose command crashes at start ends crashed after max_restarts and is left alone until fleet restart", async () => {
  await using fleet = await testFleet([], "28800-28809", {
    SVC_FLEET_BACKOFF: "0.2",
    SVC_FLEET_BACKOFF_MAX: "0.4",
  });
  await Deno.mkdir(join(fleet.root, "crasher"));
  await Deno.mkdir(join(fleet.root, ".svc"));
  await Deno.writeTextFile(
    join(fleet.root, ".svc", "fleet.json"),
    JSON.stringify({
      agents: [{
        name: "crasher",
        dir: "crasher",
        max_restarts: 2,
        command: ["sh", "-c", 'echo "boom from $SVC_FLEET_AGENT"; exit 3'],
      }],
    }),
  );
  const log = join(fleet.root, "crasher", ".svc", "logs", "crasher.log");
  const booms = async () =>
    (await Deno.readTextFile(log).catch(() => "")).split("\n").filter((l) =>
      l === "boom from crasher"
    )
      .length;
  const supervisor = fleet.spawn(["fleet", "up"]); // the foreground supervisor
  try {
    const crashed = (await fleet.waitFor("crashed", (s) => s.agents.crasher?.state === "crashed"))
      .agents.crasher;
    assert.deepEqual(
      [crashed.restarts, crashed.last_exit?.code, crashed.pid, crashed.next_retry_at],
      [2, 3, null, null],
    );
    assert.match(crashed.last_error!, /^exited with code 3$/);
    assert.equal(await booms(), 3, "the first start and max_restarts 2 restarts");
    await new Promise((resolve) => setTimeout(resolve, 1500)); // several sweeps and backoffs
    assert.equal(await booms(), 3, "a crashed agent is left alone");
    assert.equal((await fleet.state()).agents.crasher.state, "crashed");
    const status = (await fleet.svc(["fleet", "status"])).stdout;
    assert.match(
      status,
      /^crasher\s+crashed\s+unknown\s+-\s+\d+\s+2\/2\s+code 3 \(\d+ s ago\)\s+-$/m,
    );
    assert.match(status, /^crasher: exited with code 3$/m);

    const restart = await fleet.svc(["fleet", "restart", "crasher"]);
    assert.deepEqual([restart.code, restart.stdout], [0, "restarting crasher\n"]);
    const deadline = Date.now() + 10_000;
    while ((await booms()) < 6 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fleet.waitFor("crashed again", (s) => s.agents.crasher.state === "crashed");
    assert.equal(await booms(), 6, "restart reset the counter: three more starts");
  } finally {
    supervisor.kill("SIGINT");
    const [status, stderr] = await Promise.all([
      supervisor.status,
      new Response(supervisor.stderr).text(),
      supervisor.stdout.cancel(),
    ]);
    assert.equal(status.code, 0, stderr);
    assert.match(stderr, /svc fleet: stopped; no agent of .* is running\n$/);
  }
});

Deno.test("an agent disabled in the roster is stopped and left alone; enabled again it starts", async () => {
  await using fleet = await testFleet(["keep", "pause"], "28810-28819");
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  assert.equal((await fleet.svc(["fleet", "up", "--detach"])).code, 0);
  const running = await fleet.waitFor("two agents", allRunning(["keep", "pause"]));
  const disable = await fleet.svc(["fleet", "disable", "pause"]);
  assert.equal(disable.code, 0, disable.stderr);
  const stopped = await fleet.waitFor(
    "pause disabled",
    (s) => s.agents.pause.state === "disabled" && s.agents.pause.pid === null,
  );
  assert.deepEqual(await waitGone([running.agents.pause.pid!]), []);
  assert.deepEqual(
    [stopped.agents.keep.state, stopped.agents.keep.pid],
    ["running", running.agents.keep.pid],
  );
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.deepEqual([
    (await fleet.state()).agents.pause.state,
    (await fleet.state()).agents.pause.pid,
  ], [
    "disabled",
    null,
  ]);
  assert.match((await fleet.svc(["fleet", "status"])).stdout, /^pause\s+disabled\s+unknown\s+-\s/m);
  assert.equal((await fleet.svc(["fleet", "enable", "pause"])).code, 0);
  const again = await fleet.waitFor("pause running again", allRunning(["pause"]));
  assert.deepEqual(again.agents.pause.restarts, 0);
});

Deno.test("fleet logs prints the last lines and -f follows what the agent and the supervisor append", async () => {
  await using fleet = await testFleet(["talker"], "28820-28829");
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  assert.equal((await fleet.svc(["fleet", "up", "--detach"])).code, 0);
  const { port } = (await fleet.waitFor("talker", allRunning(["talker"]))).agents.talker;
  const last = await fleet.svc(["fleet", "logs", "talker", "1"]);
  assert.equal(last.code, 0, last.stderr);
  assert.match(
    last.stdout,
    new RegExp(
      `^svc serve: listening on http://127\\.0\\.0\\.1:${port} \\(worktree ${fleet.root}/talker; .*\\)\\n$`,
    ),
  );
  const follower = fleet.spawn(["fleet", "logs", "talker", "-f"]);
  const reader = follower.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const readUntil = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(seen)) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`never saw ${pattern} in:\n${seen}`)),
          Math.max(0, deadline - Date.now()),
        );
      });
      try {
        const { value, done } = await Promise.race([reader.read(), timeout]);
        if (done) throw new Error(`logs -f ended; it printed:\n${seen}`);
        seen += value;
      } finally {
        clearTimeout(timer);
      }
    }
  };
  try {
    await readUntil(
      /\[fleet [^\]]+\] starting on port \d+: .* serve --host 127\.0\.0\.1 --port \d+ --path \S+\/talker\n/,
    );
    assert.equal((await fleet.svc(["fleet", "restart", "talker"])).code, 0);
    await readUntil(
      /restart requested\n[^]*stopped \(fleet restart\)\n[^]*starting on port[^]*listening on/,
    );
    assert.match(seen, /svc serve: shutting down\n/);
  } finally {
    follower.kill("SIGINT");
    reader.releaseLock();
    await follower.stdout.cancel().catch(() => {});
    const [status] = await Promise.all([follower.status, follower.stderr.cancel()]);
    assert.equal(status.code, 0);
  }
});

Deno.test("a detached supervisor killed and started again adopts its live agents instead of starting them twice", async () => {
  await using fleet = await testFleet(["one", "two"], "28830-28839");
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  const first = supervisorPid(await fleet.svc(["fleet", "up", "--detach"]));
  const before = await fleet.waitFor("two agents", allRunning(["one", "two"]));
  Deno.kill(first, "SIGKILL");
  assert.deepEqual(await waitGone([first]), []);
  const pids = agentsOf(before, ["one", "two"]).map((a) => a.pid!);
  assert.deepEqual(pids.filter(processAlive), pids, "agents outlive a killed supervisor");
  const gone = await fleet.svc(["fleet", "status"]);
  assert.match(gone.stdout, /^supervisor: not running/);
  const second = supervisorPid(await fleet.svc(["fleet", "up", "--detach"]));
  const after = await fleet.waitFor(
    "the new supervisor's state",
    (s) => s.supervisor?.pid === second && allRunning(["one", "two"])(s),
  );
  assert.deepEqual(
    agentsOf(after, ["one", "two"]).map((a) => [a.pid, a.restarts]),
    pids.map((p) => [p, 0]),
  );
  const log = await Deno.readTextFile(join(fleet.root, ".svc", "fleet.log"));
  for (const [index, name] of ["one", "two"].entries()) {
    assert.match(log, new RegExp(`svc fleet: ${name}: adopted pid ${pids[index]} on port \\d+`));
  }
  assert.equal(log.match(/: started pid/g)?.length, 2, "each agent was started once");
  const down = await fleet.svc(["fleet", "down"]);
  assert.equal(down.code, 0, down.stderr);
  assert.deepEqual(await waitGone([second, ...pids]), []);
});

Deno.test("fleet down stops agents a killed supervisor left behind", async () => {
  await using fleet = await testFleet(["orphan"], "28850-28859");
  assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
  const daemon = supervisorPid(await fleet.svc(["fleet", "up", "--detach"]));
  const { pid } = (await fleet.waitFor("orphan", allRunning(["orphan"]))).agents.orphan;
  Deno.kill(daemon, "SIGKILL");
  assert.deepEqual(await waitGone([daemon]), []);
  const down = await fleet.svc(["fleet", "down"]);
  assert.deepEqual([down.code, down.stdout], [
    0,
    `no fleet supervisor was running for ${fleet.root}\nstopped agents it had left running: orphan\n`,
  ]);
  assert.deepEqual(await waitGone([pid!]), []);
});

Deno.test("with every port of the range taken the agent waits in backoff with a clear error, and starts once one is free", async () => {
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 28840 });
  await using fleet = await testFleet(["squeezed"], "28840-28840");
  try {
    assert.equal((await fleet.svc(["fleet", "init"])).code, 0);
    assert.equal((await fleet.svc(["fleet", "up", "--detach"])).code, 0);
    const error = "no free port in 28840-28840: every one is in use; stop what holds them, give " +
      "the agent a free prefer_port (svc fleet add --port), or set SVC_FLEET_PORT_RANGE to a " +
      "wider range";
    const waiting = (await fleet.waitFor("backoff", (s) => s.agents.squeezed?.state === "backoff"))
      .agents.squeezed;
    assert.deepEqual([waiting.last_error, waiting.restarts, waiting.pid], [error, 0, null]);
    const status = (await fleet.svc(["fleet", "status"])).stdout;
    assert.match(status, /^squeezed\s+backoff\s+unknown\s+-\s+-\s+0\/10\s+-\s+in \d+ s$/m);
    assert.ok(status.includes(`\nsqueezed: ${error}\n`), status);
  } finally {
    holder.close();
  }
  const running = await fleet.waitFor("squeezed running", allRunning(["squeezed"]));
  assert.equal(running.agents.squeezed.port, 28840);
});

Deno.test("an agent that stops answering /health is restarted after unhealthy_threshold failed probes", async () => {
  await using fleet = await testFleet([], "28890-28899", { SVC_FLEET_UNHEALTHY_THRESHOLD: "2" });
  const dir = join(fleet.root, "flaky");
  await Deno.mkdir(dir);
  // Healthy until a file named `sick` appears in its folder.
  await Deno.writeTextFile(
    join(dir, "agent.ts"),
    `const port = Number(Deno.env.get("SVC_FLEET_PORT"));
const sick = () => Deno.stat("sick").then(() => true, () => false);
Deno.serve({ hostname: "127.0.0.1", port }, async () =>
  new Response("{}", { status: (await sick()) ? 503 : 200 }));
`,
  );
  await Deno.mkdir(join(fleet.root, ".svc"));
  await Deno.writeTextFile(
    join(fleet.root, ".svc", "fleet.json"),
    JSON.stringify({
      agents: [{
        name: "flaky",
        dir: "flaky",
        command: [
          Deno.execPath(),
          "run",
          "--quiet",
          "--allow-net",
          "--allow-env",
          "--allow-read",
          "agent.ts",
        ],
      }],
    }),
  );
  assert.equal((await fleet.svc(["fleet", "up", "--detach"])).code, 0);
  const healthy = (await fleet.waitFor("flaky", allRunning(["flaky"]))).agents.flaky;
  await Deno.writeTextFile(join(dir, "sick"), "");
  const failed = (await fleet.waitFor(
    "flaky failed",
    (s) => s.agents.flaky.restarts === 1 && s.agents.flaky.pid !== healthy.pid,
  )).agents.flaky;
  assert.equal(failed.last_error, "2 consecutive health probes failed (/health answered 503)");
  assert.deepEqual(await waitGone([healthy.pid!]), []);
  await Deno.remove(join(dir, "sick"));
  const again = (await fleet.waitFor("flaky healthy again", allRunning(["flaky"]))).agents.flaky;
  assert.notEqual(again.pid, healthy.pid);
});

Deno.test("an agent killed with SIGKILL takes what it left in its process group along: a wrapper's child does not keep serving", async () => {
  await using fleet = await testFleet([], "28930-28939");
  const dir = join(fleet.root, "wrapped");
  await Deno.mkdir(dir);
  await Deno.mkdir(join(fleet.root, ".svc"));
  // A wrapper that runs its program as a child instead of exec'ing it (as npm's deno bin.cjs does).
  await Deno.writeTextFile(
    join(fleet.root, ".svc", "fleet.json"),
    JSON.stringify({
      agents: [{
        name: "wrapped",
        dir: "wrapped",
        command: ["sh", "-c", "sleep 300 & echo $! > child.pid; wait"],
      }],
    }),
  );
  const supervisor = fleet.spawn(["fleet", "up"]);
  let child = 0;
  try {
    const { pid } = (await fleet.waitFor("wrapped started", (s) => Boolean(s.agents.wrapped?.pid)))
      .agents.wrapped;
    const deadline = Date.now() + 10_000;
    while (!child && Date.now() < deadline) {
      child = Number(await Deno.readTextFile(join(dir, "child.pid")).catch(() => "0"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(child && processAlive(child), "the wrapper's child runs");
    Deno.kill(pid!, "SIGKILL");
    assert.deepEqual(await waitGone([child]), []);
  } finally {
    if (child && processAlive(child)) Deno.kill(child, "SIGKILL");
    supervisor.kill("SIGINT");
    await Promise.all([supervisor.status, supervisor.stdout.cancel(), supervisor.stderr.cancel()]);
  }
});
