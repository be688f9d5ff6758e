import assert from "node:assert/strict";
import { providerTable, resolveModelRef } from "../../src/provider/mod.ts";

const table = providerTable([
  { id: "acme", baseUrl: "https://llm.acme.test/v1/", defaultModel: "acme-1" },
]);

Deno.test("resolveModelRef resolves provider, base address and model from the table and stored entries, reading no file", () => {
  const stored = {
    anthropic: { base_url: "https://proxy.test" },
    lab: { base_url: "http://lab:8000" },
  };
  const cases: Array<[Record<string, string>, object]> = [
    [{ provider: "openai" }, {
      provider: "openai",
      baseUrl: "https://api.openai.com",
      model: "gpt-5",
    }],
    [{ model: "anthropic/claude-x" }, {
      provider: "anthropic",
      baseUrl: "https://proxy.test",
      model: "claude-x",
    }],
    [{ model: "acme/acme-2" }, {
      provider: "acme",
      baseUrl: "https://llm.acme.test",
      model: "acme-2",
    }],
    [{ provider: "lab", model: "llama" }, {
      provider: "lab",
      baseUrl: "http://lab:8000",
      model: "llama",
    }],
    [{ base_url: "https://opencode.ai/zen/go/" }, {
      provider: "opencode-go",
      baseUrl: "https://opencode.ai/zen/go",
      model: "kimi-k2.5",
    }],
    [{ provider: "openrouter", model: "anthropic/claude-x" }, {
      provider: "openrouter",
      baseUrl: "https://openrouter.ai/api",
      model: "anthropic/claude-x",
    }],
  ];
  const unfolded = [false, true, true, false, false, false];
  assert.deepEqual(
    cases.map(([config]) => resolveModelRef(config, { table, stored })),
    cases.map(([, want], i) => ({ ...want, unfolded: unfolded[i] })),
  );
});

Deno.test("resolveModelRef says what to set when the ref leads nowhere", () => {
  assert.throws(() => resolveModelRef({ model: "m" }, { table, stored: {} }), {
    message: /No model backend is configured/,
  });
  assert.throws(() => resolveModelRef({ provider: "nope" }, { table, stored: {} }), {
    message: /^Unknown provider nope: choose one of dashscope, /,
  });
  assert.throws(() => resolveModelRef({ provider: "generic", model: "m" }, { table, stored: {} }), {
    message: /^No base address for provider generic/,
  });
  assert.throws(() => resolveModelRef({ base_url: "http://127.0.0.1:9" }, { table, stored: {} }), {
    message: /^No model configured for generic/,
  });
});

Deno.test("a ref names its provider unless the server was named with it (refStays), and says what moved", () => {
  const stored = { lab: { base_url: "http://lab:8000" } };
  const local = { base_url: "http://127.0.0.1:8000", model: "openai/gpt-oss-20b" };
  const resolve = (config: Record<string, string>, refStays: boolean) =>
    resolveModelRef(config, { table, stored, refStays });
  assert.deepEqual(resolve(local, false), {
    provider: "openai",
    baseUrl: "https://api.openai.com",
    model: "gpt-oss-20b",
    unfolded: true,
    movedFrom: { provider: "generic", baseUrl: "http://127.0.0.1:8000" },
  });
  assert.deepEqual(resolve(local, true), {
    provider: "generic",
    baseUrl: "http://127.0.0.1:8000",
    model: "openai/gpt-oss-20b",
    unfolded: false,
  });
  assert.deepEqual(resolve({ provider: "openrouter", model: "anthropic/claude-x" }, false), {
    provider: "anthropic",
    baseUrl: "https://api.anthropic.com",
    model: "claude-x",
    unfolded: true,
    movedFrom: { provider: "openrouter" },
  });
  // A custom provider of providers.json is a provider too.
  assert.deepEqual(resolve({ provider: "openai", model: "lab/llama-3" }, false), {
    provider: "lab",
    baseUrl: "http://lab:8000",
    model: "llama-3",
    unfolded: true,
    movedFrom: { provider: "openai" },
  });
  // A prefix that is no provider stays part of the id; a ref of the connection's own provider
  // loses its prefix, and one with no connection to move from says nothing moved.
  assert.deepEqual(
    [
      resolve({ base_url: "http://127.0.0.1:8000", model: "qwen/qwen3" }, false),
      resolve({ model: "openai/gpt-5" }, false),
    ],
    [
      {
        provider: "generic",
        baseUrl: "http://127.0.0.1:8000",
        model: "qwen/qwen3",
        unfolded: false,
      },
      { provider: "openai", baseUrl: "https://api.openai.com", model: "gpt-5", unfolded: true },
    ],
  );
});
