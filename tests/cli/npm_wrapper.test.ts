/**
 * The installed svc with the npm package's Node wrapper first on PATH. `npm install -g deno` can
 * leave `deno` on PATH as the package's `bin.cjs`: a node script that runs the real binary with
 * `child_process.spawnSync` and passes no signal on. An svc started through it is a grandchild of
 * the pid everyone sees, so killing that pid left the server running. The installed launcher names
 * the real binary instead, and every svc that svc starts goes through that launcher.
 *
 * Run against the launcher that ran `exec deno run ...` (whatever `deno` came first on PATH), every
 * step below failed: the pid of `svc serve` was node's and its port still answered after SIGTERM;
 * `fleet up --detach` exited 1 ("the supervisor did not start") with the supervisor running; after
 * `kill -9` of an agent the old server kept its port and the agent came back on the next one;
 * after `fleet down` the old server still answered /health.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AGENT_CONFIG, allRunning, processAlive, testFleet } from "../fleet/_fleet.ts";
import type { FleetState } from "../../src/fleet/state.ts";
import { CALLER_DENO_DIR as DENO_DIR } from "../_support/builds.ts";

const CHECKOUT = new URL("../../", import.meta.url).pathname;
const REAL_DENO = Deno.execPath();
const PATH = Deno.env.get("PATH") ?? "";

/** Runs a program to completion; what it printed, as text. */
async function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(command, { args, ...options, stdin: "null" }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/**
 * Node on PATH, if any. Deno puts a `node` of its own first on the PATH of what it runs
 * (`$DENO_DIR/node_compat_bin/node`, the Deno binary): that one is skipped, the wrapper must run
 * under Node as npm's does.
 */
function findNode(): string | undefined {
  const deno = Deno.realPathSync(REAL_DENO);
  for (const dir of PATH.split(":").filter(Boolean)) {
    try {
      const candidate = join(dir, "node");
      if (Deno.statSync(candidate).isFile && Deno.realPathSync(candidate) !== deno) {
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * What the npm package's bin.cjs does once the binary is in place (`runDenoExe`): spawnSync with
 * inherited stdio, no signal forwarding, exit with the child's status.
 */
function wrapperScript(): string {
  return [
    `#!${NODE}`,
    "// The logic of the npm package deno's bin.cjs (runDenoExe).",
    'const child_process = require("child_process");',
    `const result = child_process.spawnSync(${JSON.stringify(REAL_DENO)}, ` +
    'process.argv.slice(2), { stdio: "inherit" });',
    "if (result.error) throw result.error;",
    "process.exit(result.status ?? 1);",
    "",
  ].join("\n");
}

/** The executable a process runs, or null when it is gone. */
function exeOf(pid: number): string | null {
  try {
    return Deno.readLinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Every live process whose command line mentions `text` (what is left of one install). */
function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name) || Number(entry.name) === Deno.pid) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (line.includes(text) && processAlive(Number(entry.name))) found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The live descendants of `pid` (by parent pid). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      parents.set(Number(entry.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent && processAlive(child)) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
}

/** Whether `port` on loopback answers /health (false once nothing listens). */
async function answers(port: number): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2000);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: controller.signal,
    });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const NODE = findNode();

Deno.test({
  name: "with the npm Node wrapper first on PATH, the installed svc is the process that gets the " +
    "signal: kill stops svc serve and its MCP servers, fleet up --detach succeeds, a killed " +
    "agent's server is gone when it comes back, and fleet down leaves nothing (needs node)",
  ignore: NODE === undefined,
  async fn(t) {
    const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-npm-wrapper-" }));
    const wrapperBin = join(tmp, "npm-bin");
    const inst = join(tmp, "inst");
    const launcher = join(inst, "bin", "svc");
    const home = join(tmp, "home");
    await Deno.mkdir(wrapperBin);
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(wrapperBin, "deno"), wrapperScript(), { mode: 0o755 });
    // Another svc first on PATH: an mcp.servers entry whose command is svc must not run it.
    await Deno.writeTextFile(
      join(wrapperBin, "svc"),
      '#!/bin/sh\necho "not this svc" >&2\nexit 3\n',
      { mode: 0o755 },
    );
    const path = `${wrapperBin}:${PATH}`;
    try {
      // Installed as a user would with the wrapper first on PATH: `deno` is the wrapper.
      const installed = await runProcess(join(wrapperBin, "deno"), [
        "run",
        "-A",
        join(CHECKOUT, "scripts", "install.ts"),
        `--dist=${join(tmp, "dist")}`,
        "--root",
        inst,
      ], { cwd: CHECKOUT, env: { HOME: home, DENO_DIR, PATH: path } });
      assert.equal(installed.code, 0, installed.stderr);
      const probe = await runProcess("sh", ["-c", "command -v deno"], {
        cwd: tmp,
        env: { PATH: path },
      });
      assert.equal(probe.stdout.trim(), join(wrapperBin, "deno"), "the wrapper is first on PATH");

      await t.step("svc serve killed with SIGTERM takes its MCP server along", async () => {
        const worktree = join(tmp, "serve");
        await Deno.mkdir(worktree);
        const serveHome = join(tmp, "serve-home");
        await Deno.mkdir(join(serveHome, ".config", "svc"), { recursive: true });
        await Deno.writeTextFile(
          join(serveHome, ".config", "svc", "config.json"),
          JSON.stringify({
            ...JSON.parse(AGENT_CONFIG),
            mcp: { servers: [{ name: "self", command: "svc", args: ["mcp"], autoconnect: true }] },
          }),
        );
        const child = new Deno.Command(launcher, {
          args: ["serve", "--port", "0", "--no-auth"],
          cwd: worktree,
          env: { HOME: serveHome, NO_COLOR: "1", DENO_DIR, PATH: path },
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).spawn();
        let stderr = "";
        const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
          new WritableStream({ write: (chunk) => void (stderr += chunk) }),
        );
        let exit: Deno.CommandStatus | undefined;
        const exited = child.status.then((status) => exit = status);
        let tree: number[] = [];
        try {
          const port = await until("svc serve to listen", () => {
            const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
            return Promise.resolve(match ? Number(match[1]) : undefined);
          }, 60_000);
          assert.ok(await answers(port));
          const exe = exeOf(child.pid);
          tree = descendants(child.pid);
          const mcp = tree.filter((pid) =>
            Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").includes("mcp")
          );

          Deno.kill(child.pid, "SIGTERM");
          await until("the port to close", async () => (await answers(port)) ? undefined : true);
          await until("svc serve to exit", () => Promise.resolve(exit));
          assert.equal(exit!.code, 0, stderr);
          await until(
            "svc serve's descendants to end",
            () => Promise.resolve(tree.some(processAlive) ? undefined : true),
            10_000,
          );
          // The pid svc was started as is the real Deno running svc, not a wrapper around it.
          assert.equal(exe, REAL_DENO);
          // The entry `svc` ran this svc (the one on PATH would have failed the autoconnect).
          assert.doesNotMatch(stderr, /autoconnect/);
          assert.equal(mcp.length, 1, `one svc mcp below svc serve: ${tree}`);
          assert.equal(exeOf(mcp[0]) ?? REAL_DENO, REAL_DENO);
        } finally {
          for (const pid of [child.pid, ...tree]) {
            try {
              Deno.kill(pid, "SIGKILL");
            } catch {
              // gone
            }
          }
          await exited;
          await reading;
        }
      });

      await using fleet = await testFleet(["solo"], "28920-28929");
      const svc = (args: string[]) =>
        runProcess(launcher, args, {
          cwd: fleet.root,
          env: { ...fleet.env, DENO_DIR, PATH: path },
        });
      const ports = new Set<number>();
      let supervisor = 0;
      let before: FleetState["agents"][string] | undefined;

      await t.step("fleet up --detach succeeds and its agent runs the real Deno", async () => {
        assert.equal((await svc(["fleet", "init"])).code, 0);
        const up = await svc(["fleet", "up", "--detach"]);
        const started = /supervisor started in the background \(pid (\d+)/.exec(up.stdout);
        supervisor = started ? Number(started[1]) : 0;
        before = (await fleet.waitFor("solo healthy", allRunning(["solo"]), 60_000)).agents.solo;
        ports.add(before.port!);
        assert.deepEqual([up.code, Boolean(started)], [0, true], up.stderr);
        assert.equal(exeOf(supervisor), REAL_DENO);
        assert.equal(exeOf(before.pid!), REAL_DENO);
      });

      await t.step(
        "kill -9 of the agent's pid brings it back with the old server gone",
        async () => {
          const listed = await svc(["fleet", "status", "--json"]);
          assert.equal(listed.code, 0, listed.stderr);
          const [agent] = JSON.parse(listed.stdout) as Array<{ pid: number; port: number }>;
          assert.deepEqual([agent.pid, agent.port], [before!.pid, before!.port]);
          Deno.kill(agent.pid, "SIGKILL");
          const after = (await fleet.waitFor(
            "solo healthy again",
            (s) => allRunning(["solo"])(s) && s.agents.solo.pid !== agent.pid,
            60_000,
          )).agents.solo;
          ports.add(after.port!);
          assert.equal(after.port, agent.port, "the port was free again: the old server is gone");
          assert.equal(exeOf(after.pid!), REAL_DENO);
        },
      );

      await t.step("fleet down leaves nothing answering and nothing running", async () => {
        const down = await svc(["fleet", "down"]);
        assert.equal(down.code, 0, down.stderr);
        for (const port of ports) assert.equal(await answers(port), false, `port ${port}`);
        await until(
          "the supervisor to end",
          () => Promise.resolve(processAlive(supervisor) ? undefined : true),
          10_000,
        );
      });
    } finally {
      // Whatever a failed step left running of this install is stopped, then checked for.
      const left = processesMentioning(inst);
      for (const pid of left) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      assert.deepEqual(left, [], "processes of the install left running");
    }
  },
});
