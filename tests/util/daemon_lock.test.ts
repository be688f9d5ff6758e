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
