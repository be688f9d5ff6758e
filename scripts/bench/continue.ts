/**
 * What `svc run --continue` adds to a run: finding the worktree's most recently active session
 * (`latestSession`) and the module it loads, over 100, 1,000 and 10,000 small sessions; an empty
 * `deno run` is the calibration line. Target: < 10 ms. Two cases: the record svc's last write left
 * (`.svc/sessions.latest`, a read and three stats) and the scan when no record vouches for the
 * folder (one listing and one stat per session file).
 */
import { latestSession, resolveSessionRef } from "../../src/runtime/sessions.ts";
import { latestRecordPath } from "../../src/session/latest.ts";
import { SessionStore } from "../../src/session/store.ts";
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
    // The newest session written by svc, as a run writes it: the record names it.
    const session = new SessionStore(worktree).create(`ses_latest_${count}`);
    await session.appendMessage({ role: "user", content: "hi", timestamp: "" });
    await session.sync();
    const recorded = [];
    const scanned = [];
    const prefix = [];
    for (let i = 0; i < 15; i++) {
      let start = performance.now();
      const found = await latestSession({ worktree });
      recorded.push(performance.now() - start);
      if (found !== `ses_latest_${count}`) throw new Error(`latestSession found ${found}`);
      const record = await Deno.readFile(latestRecordPath(dir));
      await Deno.remove(latestRecordPath(dir));
      start = performance.now();
      await latestSession({ worktree });
      scanned.push(performance.now() - start);
      await Deno.writeFile(latestRecordPath(dir), record);
      start = performance.now();
      await resolveSessionRef("ses_00042", { worktree });
      prefix.push(performance.now() - start);
    }
    report(`--continue: latestSession, ${count} sessions`, recorded, "ms", "< 10 ms");
    report(`--continue without a record (scan), ${count}`, scanned, "ms");
    report(`--resume <prefix>: resolveSessionRef, ${count}`, prefix, "ms");
  }
} finally {
  await Deno.remove(worktree, { recursive: true });
}
