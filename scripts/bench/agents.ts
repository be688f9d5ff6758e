/**
 * Delegation and team runs in-process against an instant provider in another process:
 * - what a `delegate` call adds to its sub-agent's own turn (one tool round: two provider round
 *   trips), measured as the delegate call minus the same turn run directly;
 * - a four-stage team run (four stage turns and the memory summary), beside five bare provider
 *   round trips, whose difference is svc's own time.
 */
import * as z from "zod";
import { ConfigSchema } from "../../src/config/schema.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import type { Tool } from "../../src/tool/types.ts";
import { catalogOf } from "../../tests/_support/catalog.ts";
import { calibrateRoundTrip, median, report, startProviderProcess } from "./_util.ts";

const provider = await startProviderProcess("./_agents_provider.ts");
const url = provider.url;

const worktree = await Deno.makeTempDir({ prefix: "svc-bench-agents-" });
const config = ConfigSchema.parse({});
const client = createChatClient({
  provider: "generic",
  baseUrl: url,
  apiKey: "",
  streamRetries: 0,
  retryDelay: 0,
  idleTimeout: 30,
});
const echo: Tool = {
  name: "echo",
  category: "read",
  description: "Echo text back",
  schema: z.object({ text: z.string() }),
  run: (args) => Promise.resolve(`echo: ${args.text}`),
};
const runtime = new Runtime({
  worktree,
  config,
  trusted: true,
  tools: [echo],
  catalog: catalogOf({
    types: Object.fromEntries(
      ["planner", "programmer", "tester", "reviewer"].map((t) => [t, { system_prompt: t }]),
    ),
    teams: { four: ["planner", "programmer", "tester", "reviewer"] },
  }),
  connection: {
    provider: "generic",
    baseUrl: url,
    model: "m",
    apiKey: "",
    unfolded: false,
    warnings: [],
    client,
  },
});
const engine = await runtime.engine({});
const signal = new AbortController().signal;

// Calibration: the provider's own round trip, which both figures below are built on.
const trips = await calibrateRoundTrip(client, signal);

const direct: number[] = [];
const delegated: number[] = [];
for (let i = 0; i < 60; i++) {
  const session = runtime.sessions.create(`bench_${i}`);
  let start = performance.now();
  const plain = await engine.runTurn("TOOL once", { session, signal });
  const directMs = performance.now() - start;
  start = performance.now();
  const out = await engine.delegate("programmer", "TOOL once", { session, signal });
  const delegateMs = performance.now() - start;
  if (plain.status !== "ok" || out.ok !== true) {
    throw new Error(`bench turn failed: ${out.content}`);
  }
  if (i >= 10) {
    direct.push(directMs);
    delegated.push(delegateMs);
  }
}
report("the sub-agent's turn run directly", direct);
report("the same turn through delegate", delegated);
report(
  "delegate's own cost (difference of medians)",
  [median(delegated) - median(direct)],
  "ms",
  "< 10 ms",
);

const teams: number[] = [];
for (let i = 0; i < 25; i++) {
  const session = runtime.sessions.create(`team_${i}`);
  const start = performance.now();
  const run = await engine.runTeam("four", "build it", { session, signal });
  if (run.status !== "ok" || run.stages.length !== 4) throw new Error("bench team run failed");
  if (i >= 5) teams.push(performance.now() - start);
}
report("four-stage team run: wall", teams);
report(
  "four-stage team run: svc's own time",
  teams.map((t) => t - 5 * median(trips)),
  "ms",
  "< 150 ms",
);

await provider.stop();
await Deno.remove(worktree, { recursive: true });
