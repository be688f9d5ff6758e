import assert from "node:assert/strict";
import { buildPayload, type Reasoning } from "../../src/provider/mod.ts";

const messages = [{ role: "user" as const, content: "hi" }];

/** The non-streaming payload for `provider` with a max_tokens cap and a reasoning value. */
function payload(provider: string, maxTokens: number | undefined, reasoning?: Reasoning) {
  return buildPayload(provider, { model: "m", messages, max_tokens: maxTokens, reasoning }, {
    stream: false,
  });
}

Deno.test("buildPayload keeps an anthropic thinking budget strictly below max_tokens", () => {
  const enabled = (budget: number) => ({ type: "enabled", budget_tokens: budget });
  assert.deepEqual(payload("anthropic", 1500, "on"), {
    model: "m",
    messages,
    max_tokens: 1500,
    stream: false,
    thinking: enabled(1499),
  });
  assert.deepEqual(payload("anthropic", 1025, "low"), {
    model: "m",
    messages,
    max_tokens: 1025,
    stream: false,
    thinking: enabled(1024),
  });
  assert.deepEqual(payload("anthropic", 8192, "high"), {
    model: "m",
    messages,
    max_tokens: 8192,
    stream: false,
    thinking: enabled(4096),
  });
});

Deno.test("buildPayload disables anthropic thinking when the smallest budget does not fit", () => {
  for (const [maxTokens, reasoning] of [[120, "on"], [120, undefined], [1024, "low"]] as const) {
    assert.deepEqual(payload("anthropic", maxTokens, reasoning), {
      model: "m",
      messages,
      max_tokens: maxTokens,
      stream: false,
      thinking: { type: "disabled" },
    });
  }
  assert.deepEqual(payload("anthropic", 120, "off"), {
    model: "m",
    messages,
    max_tokens: 120,
    stream: false,
    thinking: { type: "disabled" },
  });
});

Deno.test("buildPayload keeps the thinking budget as mapped when max_tokens is 0 or unset", () => {
  for (const maxTokens of [0, undefined]) {
    assert.deepEqual(payload("anthropic", maxTokens, "high"), {
      model: "m",
      messages,
      stream: false,
      thinking: { type: "enabled", budget_tokens: 4096 },
    });
  }
});

Deno.test("buildPayload leaves reasoning of other providers alone under a small max_tokens", () => {
  assert.deepEqual(payload("openai", 60, "high"), {
    model: "m",
    messages,
    max_tokens: 60,
    stream: false,
    reasoning_effort: "high",
  });
  assert.deepEqual(payload("dashscope", 60, "on"), {
    model: "m",
    messages,
    max_tokens: 60,
    stream: false,
    enable_thinking: true,
  });
});

Deno.test("fields kept from an answer go back only to the provider that sent them, never as an envelope", () => {
  const origin = "openrouter https://openrouter.ai/api";
  const details = [{ type: "reasoning.text", text: "hm", format: "anthropic-claude-v1" }];
  const signature = { google: { thought_signature: "CiQB" } };
  const call = { id: "c1", type: "function" as const, function: { name: "f", arguments: "{}" } };
  const kept = [
    ...messages,
    {
      role: "assistant" as const,
      content: "",
      tool_calls: [call],
      provider_fields: {
        origin,
        message: { reasoning_details: details },
        tool_calls: { c1: { extra_content: signature } },
      },
    },
    { role: "tool" as const, tool_call_id: "c1", content: "ok" },
  ];
  const sent = (to: string) =>
    buildPayload("openrouter", { model: "m", messages: kept }, { stream: false, origin: to })
      .messages;
  assert.deepEqual(sent(origin), [
    ...messages,
    {
      role: "assistant",
      content: "",
      reasoning_details: details,
      tool_calls: [{ ...call, extra_content: signature }],
    },
    kept[2],
  ]);
  for (const other of ["openrouter http://127.0.0.1:9", "generic https://openrouter.ai/api"]) {
    assert.deepEqual(sent(other), [
      ...messages,
      { role: "assistant", content: "", tool_calls: [call] },
      kept[2],
    ]);
  }
});
