import assert from "node:assert/strict";

import { join } from "node:path";
import { acquireDaemonLock, daemonHolder } from "../../src/util/daemon_lock.ts";

const HOLDER = `
import { acquireDaemonLock } from ${
  JSON.stringify(new URL("../../src/util/daemon_lock.ts", import.meta.url).href)
};
const got = await acquireDaemonLock(Deno.args[0], "test holder");
console.log(got.lock ? "held" : "refused");
setInterval(() => {}, 1 << 30);
`;

async function spawnHolder(dir: string, path: string): Promise<Deno.ChildProcess> {
  const script = join(dir, "holder.ts");
  await Deno.writeTextFile(script, HOLDER);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, path],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  assert.deepEqual(value?.trim(), "held");
  return child;
}

Deno.test("a second daemon lock is refused and names the process holding the first", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, ".svc", "daemon.lock");
  const child = await spawnHolder(dir, path);
  try {
    const second = await acquireDaemonLock(path, "second");
    assert.deepEqual(second.lock, undefined);
    assert.deepEqual(second.heldBy?.pid, child.pid);
    assert.deepEqual(second.heldBy?.command, "test holder");
    assert.deepEqual((await daemonHolder(path))?.pid, child.pid);
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a killed daemon's lock is free again though its file still names it", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "daemon.lock");
  const child = await spawnHolder(dir, path);
  child.kill("SIGKILL");
  await child.status;
  await child.stdout.cancel().catch(() => {});
  try {
    assert.deepEqual((await Deno.readTextFile(path)).includes(`"pid":${child.pid}`), true);
    assert.deepEqual(await daemonHolder(path), undefined);
    const got = await acquireDaemonLock(path, "next");
    assert.deepEqual(got.lock?.holder.pid, Deno.pid);
    assert.deepEqual((await daemonHolder(path))?.command, "next");
    got.lock?.release();
    assert.deepEqual(await daemonHolder(path), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no lock file means no daemon holds it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await daemonHolder(join(dir, "none.lock")), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const PROBER = `
import { daemonHolder } from ${
  JSON.stringify(new URL("../../src/util/daemon_lock.ts", import.meta.url).href)
};
console.log("probing");
while (true) await daemonHolder(Deno.args[0]);
`;

Deno.test("a daemon starting while another process keeps asking who holds the lock still takes it", async () => {
  // `svc fleet up --detach` and `svc jobs status` ask with a lock attempt of their own, held for a
  // moment; a daemon starting in that moment must not take it for another daemon.
  const dir = await Deno.makeTempDir();
  const path = join(dir, ".svc", "daemon.lock");
  await Deno.mkdir(join(dir, ".svc"));
  await Deno.writeTextFile(path, "");
  const script = join(dir, "prober.ts");
  await Deno.writeTextFile(script, PROBER);
  const prober = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, path],
    stdout: "piped",
  }).spawn();
  try {
    const reader = prober.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.deepEqual((await reader.read()).value?.trim(), "probing");
    reader.releaseLock();
    const refused = [];
    for (let i = 0; i < 40; i++) {
      const got = await acquireDaemonLock(path, "daemon");
      if (got.lock) got.lock.release();
      else refused.push(got.heldBy);
    }
    assert.deepEqual(refused, []);
  } finally {
    prober.kill("SIGKILL");
    await prober.status;
    await prober.stdout.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
