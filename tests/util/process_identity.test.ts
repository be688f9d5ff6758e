import assert from "node:assert/strict";
import { SVC_PERMISSIONS } from "../../src/launch/svc_command.ts";
import {
  isSameProcess,
  parseStat,
  startTime,
  startTimes,
} from "../../src/util/process_identity.ts";

Deno.test("a live process has a stable start time; an exited one has none", async () => {
  const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    const first = await startTime(child.pid);
    assert.match(first ?? "", /^\d+$/);
    assert.equal(await startTime(child.pid), first);
    assert.equal(await isSameProcess(child.pid, first!), true);
    assert.equal(await isSameProcess(child.pid, `${first}0`), false);
    const both = await startTimes([child.pid, Deno.pid, 0, -1]);
    assert.deepEqual([...both.keys()].sort(), [child.pid, Deno.pid].sort());
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.equal(await startTime(child.pid), undefined);
});

Deno.test("a process name holding spaces and parentheses does not shift the start time field", () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
  fields[0] = "S";
  const line = `4242 (evil) (name 1) ${fields.join(" ")}`;
  assert.deepEqual(parseStat(line), { pid: 4242, state: "S", start: "22" });
  assert.equal(parseStat("garbage"), undefined);
});

Deno.test("start times are read under svc's own permission set, which may not read /proc directly", async () => {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/probe.ts`;
  const module = new URL("../../src/util/process_identity.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { startTime } from ${JSON.stringify(module)};
let direct = "read";
try { Deno.readTextFileSync("/proc/self/stat"); } catch (e) { direct = (e as Error).name; }
console.log(JSON.stringify({ direct, start: await startTime(Deno.pid) }));`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SVC_PERMISSIONS, "--quiet", script],
      stderr: "inherit",
    }).output();
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(result.direct, "NotCapable");
    assert.match(result.start, /^\d+$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
