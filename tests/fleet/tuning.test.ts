import assert from "node:assert/strict";
import { backoffDelay, DEFAULT_TUNING, tuningFromEnv } from "../../src/fleet/tuning.ts";

Deno.test("the supervisor's defaults are SPEC's: sweep 2 s, health timeout 2 s, threshold 2, backoff 5 s to 60 s, ports 8780-8890", () => {
  assert.deepEqual(tuningFromEnv(() => undefined), {
    sweepMs: 2_000,
    healthTimeoutMs: 2_000,
    unhealthyThreshold: 2,
    backoffMs: 5_000,
    backoffMaxMs: 60_000,
    graceMs: 10_000,
    startTimeoutMs: 60_000,
    ports: { first: 8780, last: 8890 },
    logMaxBytes: 10 << 20,
  });
  assert.deepEqual(tuningFromEnv(() => undefined), DEFAULT_TUNING);
});

Deno.test("the restart delay doubles from 5 s per consecutive failure and stays at the 60 s cap", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n, DEFAULT_TUNING) / 1000),
    [5, 10, 20, 40, 60, 60, 60, 60],
  );
});

Deno.test("SVC_FLEET_* variables override the timings and the port range, and a bad value names its variable", () => {
  const env: Record<string, string> = {
    SVC_FLEET_SWEEP: "0.2",
    SVC_FLEET_HEALTH_TIMEOUT: "1",
    SVC_FLEET_UNHEALTHY_THRESHOLD: "3",
    SVC_FLEET_BACKOFF: "0.5",
    SVC_FLEET_BACKOFF_MAX: "4",
    SVC_FLEET_GRACE: "1.5",
    SVC_FLEET_START_TIMEOUT: "9",
    SVC_FLEET_PORT_RANGE: "28000-28010",
    SVC_FLEET_LOG_MAX_BYTES: "4096",
  };
  assert.deepEqual(tuningFromEnv((name) => env[name]), {
    sweepMs: 200,
    healthTimeoutMs: 1_000,
    unhealthyThreshold: 3,
    backoffMs: 500,
    backoffMaxMs: 4_000,
    graceMs: 1_500,
    startTimeoutMs: 9_000,
    ports: { first: 28000, last: 28010 },
    logMaxBytes: 4096,
  });
  const bad = (name: string, value: string) => () =>
    tuningFromEnv((n) => (n === name ? value : undefined));
  assert.throws(
    bad("SVC_FLEET_SWEEP", "fast"),
    /^Error: SVC_FLEET_SWEEP must be a number of seconds of at least 0.05, not "fast"$/,
  );
  assert.throws(
    bad("SVC_FLEET_PORT_RANGE", "9000-8000"),
    /^Error: SVC_FLEET_PORT_RANGE must be a port range like 8780-8890, not "9000-8000"$/,
  );
  assert.throws(
    bad("SVC_FLEET_UNHEALTHY_THRESHOLD", "0"),
    /SVC_FLEET_UNHEALTHY_THRESHOLD must be an integer of at least 1/,
  );
  assert.throws(
    bad("SVC_FLEET_BACKOFF", "100"),
    /SVC_FLEET_BACKOFF_MAX must not be below SVC_FLEET_BACKOFF/,
  );
});
