import assert from "node:assert/strict";
import { startTimer, STEP_MS } from "../../src/util/timer.ts";

/** Runs `code` in a new Deno process (the timer module imported as `startTimer`). */
async function inProcess(code: string): Promise<{ out: string; ms: number }> {
  const module = new URL("../../src/util/timer.ts", import.meta.url).href;
  const started = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `import { startTimer } from "${module}";\n${code}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  return { out: new TextDecoder().decode(result.stdout), ms: performance.now() - started };
}

Deno.test("a timer fires once after its time, in order with other timers, and not once cancelled", async () => {
  const fired: string[] = [];
  const started = performance.now();
  const done = Promise.withResolvers<void>();
  startTimer(60, () => {
    fired.push("60");
    done.resolve();
  });
  startTimer(20, () => fired.push("20"));
  const cancel = startTimer(40, () => fired.push("40"));
  cancel();
  cancel();
  startTimer(-5, () => fired.push("negative"));
  startTimer(Number.NaN, () => fired.push("NaN"));
  await done.promise;
  assert.ok(performance.now() - started >= 59);
  assert.deepEqual(fired, ["negative", "NaN", "20", "60"]);
});

Deno.test("a wait longer than one step fires once, on time, and cancels at any step", async () => {
  const started = performance.now();
  let fired = 0;
  const done = Promise.withResolvers<number>();
  startTimer(STEP_MS + 200, () => {
    fired++;
    done.resolve(performance.now() - started);
  });
  let late = 0;
  const cancel = startTimer(STEP_MS + 200, () => late++);
  startTimer(STEP_MS + 50, cancel); // cancelled after its first step ran out
  const took = await done.promise;
  assert.ok(took >= STEP_MS + 199 && took < STEP_MS + 1200, `fired after ${took} ms`);
  await new Promise((resolve) => startTimer(100, () => resolve(undefined)));
  assert.deepEqual([fired, late], [1, 0]);
});

Deno.test("a pending timer keeps the process alive as setTimeout does; a cancelled one does not", async () => {
  // Nothing else is pending: without the timer holding it, the process would end at once.
  const pending = await inProcess(`startTimer(300, () => console.log("fired"));`);
  assert.equal(pending.out, "fired\n");
  const cancelled = await inProcess(
    `const cancel = startTimer(20_000, () => console.log("fired")); cancel(); console.log("done");`,
  );
  assert.equal(cancelled.out, "done\n");
  assert.ok(cancelled.ms < 10_000, `a cancelled timer held the process ${cancelled.ms} ms`);
  // An await on a timer alone completes (top-level await does not find an empty event loop).
  const awaited = await inProcess(
    `await new Promise((resolve) => startTimer(50, () => resolve(undefined))); console.log("after");`,
  );
  assert.equal(awaited.out, "after\n");
});

Deno.test("starting a timer loads no Node module: the global setTimeout is never read", async () => {
  const { out } = await inProcess(`
const real = Object.getOwnPropertyDescriptor(globalThis, "setTimeout");
Object.defineProperty(globalThis, "setTimeout", {
  configurable: true,
  get() { console.log("setTimeout read"); return real.get.call(this); },
});
await new Promise((resolve) => startTimer(10, () => resolve(undefined)));
startTimer(10_000, () => {})();
console.log("done");`);
  assert.equal(out, "done\n");
});
