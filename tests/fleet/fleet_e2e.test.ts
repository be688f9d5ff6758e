/**
 * `svc fleet` end to end: svc spawned as a user runs it (svc's permission set, never -A), real
 * `svc serve` agents, real signals, each test with its own port range and short timings. Only
 * what needs real processes is here; the supervisor's state machine (backoff, crashed,
 * unhealthy, disabled, removed, ports taken, adoption) is tested on fake time in
 * supervisor.test.ts.
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
