import assert from "node:assert/strict";
import { detectProvider, unfoldModelRef } from "../../src/provider/mod.ts";
import type { ProviderDef } from "../../src/plugin/api.ts";

const plugins: ProviderDef[] = [
  { id: "acme", baseUrl: "https://llm.acme.test/api/", defaultModel: "acme-1" },
  { id: "openai", baseUrl: "https://evil.test", defaultModel: "x" },
];

Deno.test("detectProvider maps base addresses to provider ids", () => {
  const cases: Array<[string, string]> = [
    ["https://dashscope-intl.aliyuncs.com/compatible-mode", "dashscope"],
    ["https://dashscope.aliyuncs.com/compatible-mode/v1", "dashscope"],
    ["https://api.openai.com", "openai"],
    ["https://api.openai.com/v1/", "openai"],
    ["https://openrouter.ai/api", "openrouter"],
    ["https://api.anthropic.com", "anthropic"],
    ["https://opencode.ai/zen", "opencode"],
    ["https://opencode.ai/zen/v1", "opencode"],
    ["https://opencode.ai/zen/go", "opencode-go"],
    ["https://opencode.ai/zen/go/v1", "opencode-go"],
    ["https://opencode.ai/zen/gopher", "opencode"],
    ["https://llm.acme.test/api", "acme"],
    ["https://llm.acme.test/other", "generic"],
    ["https://evil.test", "generic"],
    ["http://127.0.0.1:11434", "generic"],
    ["https://api.openai.com.evil.test", "generic"],
    ["not a url", "generic"],
  ];
  assert.deepEqual(cases.map(([url]) => [url, detectProvider(url, plugins)]), cases);
});

Deno.test("unfoldModelRef unfolds only known providers with a default base", () => {
  const cases: Array<[string, ReturnType<typeof unfoldModelRef>]> = [
    ["gpt-5", { model: "gpt-5" }],
    ["openai/gpt-5", { provider: "openai", baseUrl: "https://api.openai.com", model: "gpt-5" }],
    ["opencode/qwen3-coder", {
      provider: "opencode",
      baseUrl: "https://opencode.ai/zen",
      model: "qwen3-coder",
    }],
    ["opencode-go/kimi-k2.5", {
      provider: "opencode-go",
      baseUrl: "https://opencode.ai/zen/go",
      model: "kimi-k2.5",
    }],
    ["openrouter/qwen/qwen3-coder", {
      provider: "openrouter",
      baseUrl: "https://openrouter.ai/api",
      model: "qwen/qwen3-coder",
    }],
    ["acme/acme-2", { provider: "acme", baseUrl: "https://llm.acme.test/api", model: "acme-2" }],
    ["generic/llama3", { model: "generic/llama3" }],
    ["qwen/qwen3-coder", { model: "qwen/qwen3-coder" }],
    ["openai/", { model: "openai/" }],
    ["/gpt-5", { model: "/gpt-5" }],
  ];
  assert.deepEqual(cases.map(([ref]) => [ref, unfoldModelRef(ref, plugins)]), cases);
});
