import assert from "node:assert/strict";
import { delay, realClock, sleep } from "../../src/util/time.ts";

Deno.test("sleep resolves true when the wait completes", async () => {
  assert.equal(await sleep(10), true);
});

Deno.test("sleep resolves false at once when the signal aborts, before or during the wait", async () => {
  const before = new AbortController();
  before.abort();
  assert.equal(await sleep(60_000, before.signal), false);
  const during = new AbortController();
  const started = performance.now();
  const waiting = sleep(60_000, during.signal);
  setTimeout(() => during.abort(), 10);
  assert.equal(await waiting, false);
  assert.ok(performance.now() - started < 5_000);
});

Deno.test("delay waits about the given milliseconds", async () => {
  const started = performance.now();
  await delay(20);
  assert.ok(performance.now() - started >= 15);
});

Deno.test("realClock reads epoch and monotonic milliseconds and sleeps in milliseconds, false when aborted", async () => {
  const before = Date.now();
  const start = realClock.monotonic();
  assert.equal(await realClock.sleep(20, undefined, "test"), true);
  assert.ok(realClock.now() - before >= 15 && realClock.now() - before < 5_000);
  assert.ok(realClock.monotonic() - start >= 15);
  const aborted = new AbortController();
  setTimeout(() => aborted.abort(), 10);
  assert.equal(await realClock.sleep(60_000, aborted.signal), false);
});

Deno.test("realClock.every calls until stopped", async () => {
  let calls = 0;
  const stop = realClock.every(5, () => calls++);
  await delay(60);
  stop();
  const seen = calls;
  await delay(30);
  assert.ok(seen >= 2, `called ${seen} times`);
  assert.equal(calls, seen);
});

Deno.test("realClock.every does not keep the process alive", async () => {
  const module = new URL("../../src/util/time.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", `import { realClock } from "${module}"; realClock.every(10, () => {});`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const status = await child.status;
  clearTimeout(timer);
  assert.deepEqual([status.code, status.signal], [0, null]);
});
