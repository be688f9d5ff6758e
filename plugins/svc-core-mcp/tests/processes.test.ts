/**
 * Server processes never outlive svc: a server that ignores both the end of its input and
 * SIGTERM is gone once `svc run` exits, and once `svc serve` is killed with SIGKILL (where the
 * parent-death signal is available).
 */
import assert from "node:assert/strict";
import { sandbox, spawnSvc, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";
import { writeConfig } from "../../../tests/http/_serve.ts";
import { needs } from "../../../tests/_support/tools.ts";
import { fixture } from "./_servers.ts";

const HOSTILE = new URL("./hostile_server.ts", import.meta.url).pathname;

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Waits for the stubborn fixture to write its pid. */
async function pidFrom(file: string, ms = 20000): Promise<number> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const text = await Deno.readTextFile(file).catch(() => "");
    if (text.endsWith("\n")) return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the stubborn server never started");
}

async function stubbornConfig(home: string, pidFile: string): Promise<void> {
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.config/svc/config.json`,
    JSON.stringify({
      "mcp.servers": [
        fixture("stub", "hostile_server.ts", ["stubborn", pidFile], { autoconnect: true }),
      ],
    }),
  );
}

Deno.test("the stubborn fixture survives the end of its input and SIGTERM on its own", async () => {
  const pidFile = await Deno.makeTempFile();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HOSTILE, "stubborn", pidFile],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const pid = await pidFrom(pidFile);
    await child.stdin.close();
    child.kill("SIGTERM");
    assert.equal(await gone(pid, 1000), false);
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(pidFile);
  }
});

Deno.test("svc run ends the servers it started, even one that ignores its input ending and SIGTERM", async () => {
  await using box = await sandbox();
  const pidFile = `${box.home}/stub.pid`;
  await stubbornConfig(box.home, pidFile);
  const fake = await startFakeProvider([{ text: "done" }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "hi"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const pid = await pidFrom(pidFile);
  assert.equal(await gone(pid), true, `server ${pid} outlived svc run`);
});

Deno.test(
  "svc serve killed with SIGKILL takes its servers with it (needs setpriv)",
  needs("setpriv"),
  async () => {
    await using box = await sandbox();
    const pidFile = `${box.home}/stub.pid`;
    await stubbornConfig(box.home, pidFile);
    await writeConfig(box.worktree, "http://127.0.0.1:9");
    const child = spawnSvc(["serve", "--port", "0"], { cwd: box.worktree, env: box.env });
    child.stdout.cancel();
    child.stderr.cancel();
    try {
      const pid = await pidFrom(pidFile);
      assert.equal(alive(pid), true);
      child.kill("SIGKILL");
      await child.status;
      assert.equal(await gone(pid), true, `server ${pid} outlived a killed svc serve`);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  },
);
