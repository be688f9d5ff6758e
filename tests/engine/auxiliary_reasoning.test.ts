import assert from "node:assert/strict";
import { compactSession } from "../../src/engine/compaction.ts";
import type { Reasoning } from "../../src/provider/types.ts";
import { echoTool, harness } from "../_support/engine.ts";

/**
 * Two turns against a fake configured as `provider`, exercising every auxiliary call: web_search
 * query refinement, tool_analysis, an `ask` to the lead, then compaction. Returns what each
 * request asked for: stream, max_tokens and the reasoning fields.
 */
async function requestsOf(provider: string, reasoning: Reasoning) {
  let streamed = 0;
  const script = (body: Record<string, unknown>) => {
    if (body.stream === false) return { text: "note" };
    if (streamed++ > 0) return { text: "done" };
    return {
      tool_calls: [
        { name: "echo", arguments: { text: "a" } },
        { name: "ask", arguments: { question: "which?", target: "lead" } },
      ],
    };
  };
  await using h = await harness(script, {
    provider,
    tools: [echoTool(), echoTool("web_search", "web")],
    config: { reasoning, tool_analysis: true, web_search: true, query_refine: true },
  });
  const { client, config } = h.engine.deps;
  const lead = { client, model: "fake-model", task: "fix it", reasoning: config.reasoning };
  const engine = await h.engine.derive({ lead });
  const session = h.store.create("t");
  for (const prompt of ["go", "more"]) {
    assert.equal((await engine.runTurn(prompt, { session })).status, "ok");
  }
  const compacted = await compactSession(session, client, {
    model: "fake-model",
    keep: 2,
    reasoning,
  });
  assert.equal(compacted.ok, true);
  return h.fake.requests.map(({ body }) =>
    Object.fromEntries(
      ["stream", "max_tokens", "thinking", "reasoning_effort", "enable_thinking"]
        .filter((key) => body[key] !== undefined).map((key) => [key, body[key]]),
    )
  );
}

const disabled = { type: "disabled" };
const budget = (tokens: number) => ({ type: "enabled", budget_tokens: tokens });

Deno.test("reasoning off disables anthropic thinking on auxiliary calls too", async () => {
  assert.deepEqual(await requestsOf("anthropic", "off"), [
    { stream: false, max_tokens: 60, thinking: disabled }, // query refinement
    { stream: true, max_tokens: 8192, thinking: disabled },
    { stream: false, max_tokens: 120, thinking: disabled }, // analysis of echo
    { stream: false, max_tokens: 1024, thinking: disabled }, // the lead's answer
    { stream: false, max_tokens: 120, thinking: disabled }, // analysis of ask
    { stream: true, max_tokens: 8192, thinking: disabled },
    { stream: false, max_tokens: 60, thinking: disabled },
    { stream: true, max_tokens: 8192, thinking: disabled },
    { stream: false, max_tokens: 1500, thinking: disabled }, // compaction
  ]);
});

Deno.test("an anthropic thinking budget never reaches an auxiliary call's max_tokens", async () => {
  assert.deepEqual(await requestsOf("anthropic", "high"), [
    { stream: false, max_tokens: 60, thinking: disabled },
    { stream: true, max_tokens: 8192, thinking: budget(4096) },
    { stream: false, max_tokens: 120, thinking: disabled },
    { stream: false, max_tokens: 1024, thinking: disabled },
    { stream: false, max_tokens: 120, thinking: disabled },
    { stream: true, max_tokens: 8192, thinking: budget(4096) },
    { stream: false, max_tokens: 60, thinking: disabled },
    { stream: true, max_tokens: 8192, thinking: budget(4096) },
    { stream: false, max_tokens: 1500, thinking: budget(1499) },
  ]);
});

Deno.test("reasoning off sends no reasoning_effort on any openai call", async () => {
  assert.deepEqual(await requestsOf("openai", "off"), [
    { stream: false, max_tokens: 60 },
    { stream: true, max_tokens: 8192 },
    { stream: false, max_tokens: 120 },
    { stream: false, max_tokens: 1024 },
    { stream: false, max_tokens: 120 },
    { stream: true, max_tokens: 8192 },
    { stream: false, max_tokens: 60 },
    { stream: true, max_tokens: 8192 },
    { stream: false, max_tokens: 1500 },
  ]);
});
