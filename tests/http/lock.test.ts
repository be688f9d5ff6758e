import assert from "node:assert/strict";
import { Mutex, QueueFullError } from "../../src/http/mod.ts";

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

Deno.test("the mutex runs holders one at a time in arrival order", async () => {
  const lock = new Mutex();
  const log: string[] = [];
  let active = 0;
  await Promise.all([1, 2, 3].map((n) =>
    lock.run(async () => {
      active++;
      assert.equal(active, 1);
      log.push(`start ${n}`);
      await tick();
      log.push(`end ${n}`);
      active--;
    })
  ));
  assert.deepEqual(log, ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  assert.deepEqual([lock.busy, lock.waiting], [false, 0]);
});

Deno.test("the mutex is released when a holder throws", async () => {
  const lock = new Mutex();
  await assert.rejects(lock.run(() => Promise.reject(new Error("boom"))), { message: "boom" });
  assert.equal(await lock.run(() => Promise.resolve(7)), 7);
});

Deno.test("the mutex refuses callers beyond its queue limit", async () => {
  const lock = new Mutex(1);
  const first = lock.run(() => tick(20));
  const second = lock.run(() => Promise.resolve("second"));
  await assert.rejects(lock.run(() => Promise.resolve()), QueueFullError);
  await first;
  assert.equal(await second, "second");
});

Deno.test("an aborted waiter leaves the queue", async () => {
  const lock = new Mutex();
  const first = lock.run(() => tick(20));
  const controller = new AbortController();
  const waiter = lock.run(() => Promise.resolve("ran"), controller.signal);
  assert.equal(lock.waiting, 1);
  controller.abort(new Error("gone"));
  await assert.rejects(waiter, { message: "gone" });
  assert.equal(lock.waiting, 0);
  await first;
  assert.equal(lock.busy, false);
});
