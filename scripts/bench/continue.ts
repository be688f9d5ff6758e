/**
 * What `svc run --continue` adds to a run: finding the worktree's most recently active session
 * (`latestSession`: one listing and one stat per session file) and the module it loads, over 100,
 * 1,000 and 10,000 small sessions; an empty `deno run` is the calibration line. Target: < 10 ms.
 */
import { latestSession, resolveSessionRef } from "../../src/runtime/sessions.ts";
import { report, timeProcess } from "./_util.ts";

const worktree = await Deno.makeTempDir({ prefix: "svc-bench-continue-" });
const dir = `${worktree}/.svc/sessions`;
await Deno.mkdir(dir, { recursive: true });
try {
  await Deno.writeTextFile(`${worktree}/empty.ts`, "");
  const floor = [];
  for (let i = 0; i < 5; i++) {
    floor.push(
      (await timeProcess([Deno.execPath(), "run", "--quiet", `${worktree}/empty.ts`])).wall,
    );
  }
  report("calibration: empty deno run", floor);
  const load = performance.now();
  await import("../../src/runtime/sessions.ts");
  report("loading runtime/sessions.ts (cached)", [performance.now() - load]);
  let written = 0;
  for (const count of [100, 1_000, 10_000]) {
    for (; written < count; written++) {
      const name = `ses_${String(written).padStart(5, "0")}_bench`;
      await Deno.writeTextFile(`${dir}/${name}.json`, `{"name":"${name}","messages":[]}`);
    }
    const latest = [];
    const prefix = [];
    for (let i = 0; i < 15; i++) {
      let start = performance.now();
      await latestSession({ worktree });
      latest.push(performance.now() - start);
      start = performance.now();
      await resolveSessionRef("ses_00042", { worktree });
      prefix.push(performance.now() - start);
    }
    report(`--continue: latestSession, ${count} sessions`, latest, "ms", "< 10 ms");
    report(`--resume <prefix>: resolveSessionRef, ${count}`, prefix, "ms");
  }
} finally {
  await Deno.remove(worktree, { recursive: true });
}
