/**
 * `svc eval` against an instant provider (the scripted perfect agent, in another process):
 * - svc's own cost per trial: a trial's wall time (temporary worktree created, provisioned and
 *   removed; runtime and engine built; the turn run and judged) minus its provider round trips;
 * - the five bundled fixtures x 3 repeats as one whole `svc eval run` process.
 */
import { join } from "node:path";
import { BUNDLED_PLUGINS, ConfigSchema } from "../../src/config/schema.ts";
import { parseFixture } from "../../src/eval/fixture.ts";
import { evalConfig, runTrial } from "../../src/eval/trial.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import {
  calibrateRoundTrip,
  MAIN,
  median,
  report,
  startProviderProcess,
  timeProcess,
} from "./_util.ts";

const provider = await startProviderProcess("./_eval_provider.ts");
const url = provider.url;

const base = await Deno.makeTempDir({ prefix: "svc-bench-eval-" });
const plugins = await loadPlugins({
  worktree: base,
  globalDir: join(base, "global"),
  names: BUNDLED_PLUGINS,
  trustLocal: false,
});
const fixtures = plugins.fixtures.map((raw) => parseFixture(raw, "bundled"));
const config = evalConfig(ConfigSchema.parse({}));
const client = createChatClient({
  provider: "generic",
  baseUrl: url,
  apiKey: "",
  streamRetries: 0,
  retryDelay: 0,
  idleTimeout: 30,
});
const setup = { tools: plugins.tools, owners: plugins.owners, config };
const target = {
  connection: {
    provider: "generic",
    baseUrl: url,
    model: "m",
    apiKey: "",
    unfolded: false,
    warnings: [],
    client,
  },
};
const signal = new AbortController().signal;

// Calibration: the provider's own round trip, which the per-trial figure is built on.
const trips = await calibrateRoundTrip(client, signal);
const trip = median(trips);

const limits = { maxRounds: 10, timeoutMs: 30_000 };
const walls: number[] = [];
const own: number[] = [];
const byFixture = new Map<string, number[]>();
for (let i = 0; i < 120; i++) {
  const fixture = fixtures[i % fixtures.length];
  const start = performance.now();
  const run = await runTrial(setup, { target, fixture, trial: 1, limits });
  const wall = performance.now() - start;
  if (run.record.outcome !== "pass") throw new Error(`bench trial failed: ${run.record.failures}`);
  if (i >= 20) {
    walls.push(wall);
    own.push(wall - run.record.rounds * trip);
    byFixture.set(fixture.id, [
      ...byFixture.get(fixture.id) ?? [],
      wall - run.record.rounds * trip,
    ]);
  }
}
report("one trial (a bundled fixture, perfect agent): wall", walls);
report("svc's own cost per trial (wall minus round trips)", own, "ms", "< 30 ms");
const [slowest, costs] = [...byFixture].sort((a, b) => median(b[1]) - median(a[1]))[0];
report(`  slowest fixture: ${slowest}`, costs, "ms", "< 30 ms");

const home = join(base, "home");
const cwd = join(base, "work");
await Deno.mkdir(home);
await Deno.mkdir(cwd);
const whole: number[] = [];
for (let i = 0; i < 5; i++) {
  const sample = await timeProcess([
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    MAIN,
    "eval",
    "run",
    "--base-url",
    url,
    "--model",
    "m",
    "--report",
    join(base, `report-${i}`),
  ], { cwd, env: { HOME: home, NO_COLOR: "1" } });
  whole.push(sample.wall);
}
report("svc eval run: 5 bundled fixtures x 3 repeats", whole, "ms", "< 5000 ms");

await provider.stop();
await Deno.remove(base, { recursive: true });
