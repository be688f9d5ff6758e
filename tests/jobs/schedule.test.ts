/** Schedule math as tables: cron rules, intervals, one-shot times, DST in a named zone. */
import assert from "node:assert/strict";
import { cronProblem, nextRunAfter, parseAt } from "../../src/jobs/schedule.ts";
import type { Schedule } from "../../src/jobs/schema.ts";

const CHILD = new URL("./_next_runs.ts", import.meta.url).pathname;

/** The next `n` runs of each case, computed in a process whose TZ is `tz`. */
async function nextRuns(
  tz: string,
  cases: Array<{ schedule: Schedule; from: string; n: number }>,
): Promise<string[][]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-read", "--allow-env", CHILD, JSON.stringify(cases)],
    env: { TZ: tz },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("cron tables in UTC: day-of-month AND day-of-week, 0 and 7 are Sunday, month ends, leap day, steps and lists", async () => {
  const table: Array<[string, string, number, string[]]> = [
    // Friday the 13th only (both fields must match), not every 13th or every Friday.
    ["0 9 13 * 5", "2026-01-01T00:00:00Z", 3, [
      "2026-02-13T09:00:00.000Z",
      "2026-03-13T09:00:00.000Z",
      "2026-11-13T09:00:00.000Z",
    ]],
    ["0 0 * * 0", "2026-01-01T00:00:00Z", 2, [
      "2026-01-04T00:00:00.000Z",
      "2026-01-11T00:00:00.000Z",
    ]],
    ["0 0 * * 7", "2026-01-01T00:00:00Z", 2, [
      "2026-01-04T00:00:00.000Z",
      "2026-01-11T00:00:00.000Z",
    ]],
    ["0 0 * * 6-7", "2026-01-01T00:00:00Z", 3, [
      "2026-01-03T00:00:00.000Z",
      "2026-01-04T00:00:00.000Z",
      "2026-01-10T00:00:00.000Z",
    ]],
    // The 31st exists in seven months only.
    ["0 0 31 * *", "2026-01-31T12:00:00Z", 3, [
      "2026-03-31T00:00:00.000Z",
      "2026-05-31T00:00:00.000Z",
      "2026-07-31T00:00:00.000Z",
    ]],
    ["30 12 29 2 *", "2026-01-01T00:00:00Z", 2, [
      "2028-02-29T12:30:00.000Z",
      "2032-02-29T12:30:00.000Z",
    ]],
    ["*/20 * * * *", "2026-01-01T00:20:00Z", 3, [
      "2026-01-01T00:40:00.000Z",
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T01:20:00.000Z",
    ]],
    ["5 1-10/4 * * *", "2026-01-01T00:00:00Z", 4, [
      "2026-01-01T01:05:00.000Z",
      "2026-01-01T05:05:00.000Z",
      "2026-01-01T09:05:00.000Z",
      "2026-01-02T01:05:00.000Z",
    ]],
    ["0 8,17 * 1,7 1", "2026-06-30T00:00:00Z", 3, [
      "2026-07-06T08:00:00.000Z",
      "2026-07-06T17:00:00.000Z",
      "2026-07-13T08:00:00.000Z",
    ]],
  ];
  const got = await nextRuns(
    "UTC",
    table.map(([cron, from, n]) => ({ schedule: { cron }, from, n })),
  );
  assert.deepEqual(got, table.map(([, , , want]) => want));
});

Deno.test("cron across DST changes in Europe/Berlin: a fixed time in the spring gap runs once after it, once on the repeated autumn hour; steps follow real time", async () => {
  const got = await nextRuns("Europe/Berlin", [
    // 2026-03-29: 02:00 local jumps to 03:00 (01:00Z).
    { schedule: { cron: "30 2 * * *" }, from: "2026-03-28T12:00:00Z", n: 3 },
    { schedule: { cron: "0 * * * *" }, from: "2026-03-28T23:30:00Z", n: 3 },
    // 2026-10-25: 03:00 local falls back to 02:00 (01:00Z); 02:30 happens twice.
    { schedule: { cron: "30 2 * * *" }, from: "2026-10-24T12:00:00Z", n: 2 },
    { schedule: { cron: "0 9 * * *" }, from: "2026-10-24T12:00:00Z", n: 2 },
  ]);
  assert.deepEqual(got, [
    ["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z", "2026-03-31T00:30:00.000Z"],
    ["2026-03-29T00:00:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z"],
    ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"],
    ["2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"],
  ]);
});

Deno.test("cron expressions outside SPEC's grammar are refused with a reason", () => {
  const table: Array<[string, string | null]> = [
    ["0 9 * * 1-5", null],
    ["*/15 0-23/2 1,15 1-12 0-7", null],
    ["@daily", "cron nicknames such as @daily are not supported"],
    ["0 0 L * *", 'day-of-month field "L": "L" is not valid (names and the letters L and W'],
    ["0 0 * * MON", 'day-of-week field "MON": "MON" is not valid (names'],
    ["0 0 * JAN *", 'month field "JAN"'],
    ["0 0 ? * 1", 'day-of-month field "?": "?" is not valid (# and ? are not supported)'],
    ["0 0 * * 5#3", 'day-of-week field "5#3": "5#3" is not valid (# and ? are not supported)'],
    ["0 0 15W * *", 'day-of-month field "15W"'],
    ["0 0 * * 8", 'day-of-week field "8": 8 is outside 0-7'],
    ["60 * * * *", 'minute field "60": 60 is outside 0-59'],
    ["0 0 0 * *", 'day-of-month field "0": 0 is outside 1-31'],
    ["5/10 * * * *", 'minute field "5/10": "5/10" is not valid (use *, */n, a, a-b, a-b/n'],
    ["*/0 * * * *", 'minute field "*/0": step must be 1 or more'],
    ["10-5 * * * *", 'minute field "10-5": the range 10-5 runs backwards'],
    [
      "0 0 * *",
      'a cron expression has 5 fields (minute hour day-of-month month day-of-week), "0 0 * *" has 4',
    ],
    ["0 0 0 * * *", "has 6"],
  ];
  for (const [expr, want] of table) {
    const problem = cronProblem(expr);
    if (want === null) assert.equal(problem, null, expr);
    else assert.ok(problem?.includes(want), `${expr}: ${problem}`);
  }
});

Deno.test("intervals keep their grid strictly after now; one-shot times fire once and never after they pass", () => {
  const now = new Date("2026-01-01T00:00:10Z");
  const every = { every: 60 };
  assert.equal(nextRunAfter(every, now)?.toISOString(), "2026-01-01T00:01:10.000Z");
  // A run that took 150 s past its anchor: the next slot on the grid, no replay of missed slots.
  const anchor = new Date("2026-01-01T00:00:00Z");
  assert.equal(
    nextRunAfter(every, new Date("2026-01-01T00:02:30Z"), anchor)?.toISOString(),
    "2026-01-01T00:03:00.000Z",
  );
  // Exactly on a slot: strictly after now.
  assert.equal(
    nextRunAfter(every, new Date("2026-01-01T00:03:00Z"), anchor)?.toISOString(),
    "2026-01-01T00:04:00.000Z",
  );
  const at = { at: "2026-01-01T00:05:00.000Z" };
  assert.equal(nextRunAfter(at, now)?.toISOString(), "2026-01-01T00:05:00.000Z");
  assert.equal(nextRunAfter(at, new Date("2026-01-01T00:05:00Z")), null);
  assert.equal(parseAt("2026-05-01T07:30Z")?.toISOString(), "2026-05-01T07:30:00.000Z");
  assert.equal(parseAt("2026-05-01T09:30+02:00")?.toISOString(), "2026-05-01T07:30:00.000Z");
  assert.equal(parseAt("next tuesday"), null);
  assert.equal(parseAt("2026-13-01T00:00Z"), null);
});
