import assert from "node:assert/strict";
import { delay, sleep } from "../../src/util/time.ts";

Deno.test("sleep resolves true when the wait completes", async () => {
  assert.equal(await sleep(0.01), true);
});

Deno.test("sleep resolves false at once when the signal aborts, before or during the wait", async () => {
  const before = new AbortController();
  before.abort();
  assert.equal(await sleep(60, before.signal), false);
  const during = new AbortController();
  const started = performance.now();
  const waiting = sleep(60, during.signal);
  setTimeout(() => during.abort(), 10);
  assert.equal(await waiting, false);
  assert.ok(performance.now() - started < 5_000);
});

Deno.test("delay waits about the given milliseconds", async () => {
  const started = performance.now();
  await delay(20);
  assert.ok(performance.now() - started >= 15);
});
