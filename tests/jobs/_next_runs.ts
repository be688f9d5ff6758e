/**
 * Child process of schedule.test.ts: prints, as JSON, the next runs of each case in the time
 * zone the process was started with (TZ), so DST tables run in a known zone.
 */
import { nextRunAfter } from "../../src/jobs/schedule.ts";
import type { Schedule } from "../../src/jobs/schema.ts";

const cases = JSON.parse(Deno.args[0]) as Array<{ schedule: Schedule; from: string; n: number }>;
const out = cases.map(({ schedule, from, n }) => {
  const runs: string[] = [];
  let now = new Date(from);
  for (let i = 0; i < n; i++) {
    const next = nextRunAfter(schedule, now);
    if (!next) break;
    runs.push(next.toISOString());
    now = next;
  }
  return runs;
});
console.log(JSON.stringify(out));
