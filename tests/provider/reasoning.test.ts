import assert from "node:assert/strict";
import { buildPayload, type Reasoning, reasoningFields } from "../../src/provider/mod.ts";

const VALUES: Reasoning[] = [false, "off", true, "on", "auto", "low", "medium", "high"];

Deno.test("reasoningFields follows the mapping table for every provider and value", () => {
  const table = (provider: string) => VALUES.map((v) => [v, reasoningFields(provider, v)]);
  assert.deepEqual(table("openai"), [
    [false, {}],
    ["off", {}],
    [true, { reasoning_effort: "medium" }],
    ["on", { reasoning_effort: "medium" }],
    ["auto", { reasoning_effort: "medium" }],
    ["low", { reasoning_effort: "low" }],
    ["medium", { reasoning_effort: "medium" }],
    ["high", { reasoning_effort: "high" }],
  ]);
  const on = (budget: number) => ({ thinking: { type: "enabled", budget_tokens: budget } });
  assert.deepEqual(table("anthropic"), [
    [false, { thinking: { type: "disabled" } }],
    ["off", { thinking: { type: "disabled" } }],
    [true, on(2048)],
    ["on", on(2048)],
    ["auto", on(2048)],
    ["low", on(1024)],
    ["medium", on(2048)],
    ["high", on(4096)],
  ]);
  const level = { enable_thinking: true, chat_template_kwargs: { thinking: true } };
  assert.deepEqual(table("dashscope"), [
    [false, { enable_thinking: false }],
    ["off", { enable_thinking: false }],
    [true, { enable_thinking: true }],
    ["on", { enable_thinking: true }],
    ["auto", { enable_thinking: true }],
    ["low", level],
    ["medium", level],
    ["high", level],
  ]);
  for (const other of ["openrouter", "opencode", "opencode-go", "generic", "my-custom"]) {
    assert.deepEqual(table(other), [
      [false, {}],
      ["off", {}],
      [true, {}],
      ["on", {}],
      ["auto", {}],
      ["low", { reasoning_effort: "low" }],
      ["medium", { reasoning_effort: "medium" }],
      ["high", { reasoning_effort: "high" }],
    ]);
  }
});

const messages = [{ role: "user" as const, content: "hi" }];
const tool = {
  type: "function" as const,
  function: { name: "file_read", description: "Read", parameters: { type: "object" } },
};

Deno.test("buildPayload omits max_tokens 0, unset temperature and empty tools", () => {
  assert.deepEqual(
    buildPayload("generic", { model: "m", messages, max_tokens: 0, tools: [] }, { stream: false }),
    { model: "m", messages, stream: false },
  );
});

Deno.test("buildPayload sends temperature, max_tokens, tools and reasoning when set", () => {
  assert.deepEqual(
    buildPayload("openai", {
      model: "m",
      messages,
      temperature: 0,
      max_tokens: 8192,
      tools: [tool],
      reasoning: "high",
    }, { stream: true }),
    {
      model: "m",
      messages,
      temperature: 0,
      max_tokens: 8192,
      tools: [tool],
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: "high",
    },
  );
});
