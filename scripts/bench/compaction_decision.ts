/**
 * The automatic compaction decision of one round on a 5,000-message session: building the request
 * from the log, estimating it (calibrated) against the window and comparing with the threshold.
 * Target < 5 ms a round (docs/performance.md).
 */
import { ConfigSchema } from "../../src/config/schema.ts";
import { ContextGauge } from "../../src/engine/auto_compact.ts";
import { buildContext } from "../../src/engine/context.ts";
import type { ChatClient } from "../../src/provider/types.ts";
import { MemorySession } from "../../src/session/memory.ts";
import { report } from "./_util.ts";

const body = "A typical message of a coding session, a few sentences long. ".repeat(6);
const now = new Date().toISOString();
const session = new MemorySession("bench");
for (let i = 0; i < 5000; i++) {
  const call = {
    id: `c${i}`,
    type: "function" as const,
    function: { name: "read", arguments: "{}" },
  };
  session.data.messages.push(
    i % 4 === 0
      ? { role: "user", content: body, timestamp: now }
      : i % 4 === 1
      ? { role: "assistant", content: body, timestamp: now, tool_calls: [call] }
      : i % 4 === 2
      ? { role: "tool", content: body, timestamp: now, tool_call_id: `c${i - 1}`, name: "read" }
      : { role: "assistant", content: body, timestamp: now },
  );
}
const client = { baseUrl: "http://bench", provider: "generic" } as unknown as ChatClient;
const config = ConfigSchema.parse({ context_window: 10_000_000 });
const gauge = new ContextGauge({ config, client, provider: "generic", model: "m" }, session);
const system = ["You are svc, a careful software agent.".repeat(10)];

async function decide(): Promise<boolean> {
  const request = { model: "m", messages: buildContext(system, session.data.messages) };
  return gauge.over(await gauge.measure(request));
}

// Calibration: one pass of JSON.stringify over the same log (a CPU reference for this machine).
const calibration: number[] = [];
for (let i = 0; i < 30; i++) {
  const t0 = performance.now();
  JSON.stringify(session.data.messages);
  calibration.push(performance.now() - t0);
}
report("calibration: JSON.stringify of the 5,000-message log", calibration);

for (const [label, compacted] of [["uncompacted", false], ["compacted at 4,990", true]] as const) {
  if (compacted) {
    session.data.messages.push({
      role: "system",
      content: body,
      timestamp: now,
      compact_from: 4990,
    });
  }
  for (let i = 0; i < 20; i++) await decide();
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await decide();
    times.push(performance.now() - t0);
  }
  report(`decision, 5,000 messages, ${label}`, times, "ms", "< 5 ms");
}
