import assert from "node:assert/strict";
import {
  CONTEXT_OVERFLOW,
  isContextOverflow,
  overflowWindow,
} from "../../src/provider/context_overflow.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import type { StreamEvent } from "../../src/provider/types.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { overflowReply, WORDINGS } from "../_support/overflow_backend.ts";

const BODIES: Record<string, string> = {
  "llama.cpp":
    '{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}',
  "llama.cpp (older builds)":
    '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}',
  ollama:
    '{"error":{"message":"input length exceeds the context length","type":"api_error","param":null,"code":null}}',
  "ollama (maximum)":
    '{"error":{"message":"input length exceeds maximum context length","type":"api_error"}}',
  vllm:
    `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
  "vllm (prompt too long)":
    `{"object":"error","message":"The prompt (total length 5000) is too long to fit into the model (context length 4096). Make sure that max_model_len is no smaller than the number of text tokens.","type":"BadRequestError","code":400}`,
  "vllm (longer than)":
    `{"object":"error","message":"This model's input is longer than the model's maximum context length of 4096 tokens","type":"BadRequestError","code":400}`,
  openai:
    `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
};
const WINDOWS: Record<string, number | null> = {
  "llama.cpp": 4096,
  "llama.cpp (older builds)": null,
  ollama: null,
  "ollama (maximum)": null,
  vllm: 4096,
  "vllm (prompt too long)": 4096,
  "vllm (longer than)": 4096,
  openai: 8192,
};

for (const [server, body] of Object.entries(BODIES)) {
  Deno.test(`the context overflow of ${server} is recognised and its window read`, () => {
    assert.equal(isContextOverflow(body), true);
    assert.equal(overflowWindow(body), WINDOWS[server]);
  });
}

Deno.test("other errors are not taken for a context overflow", () => {
  for (
    const body of [
      '{"error":{"message":"Rate limit reached for requests","code":"rate_limit_exceeded"}}',
      '{"error":{"message":"max_tokens is too large: 9000. This model supports at most 4096 completion tokens"}}',
      '{"error":{"message":"model \\"qwen\\" not found, try pulling it first"}}',
      "upstream connect error",
    ]
  ) assert.equal(isContextOverflow(body), false, body);
});

async function streamed(reply: Parameters<typeof startFakeProvider>[0]) {
  const fake = await startFakeProvider(reply);
  try {
    const client = createChatClient({
      provider: "generic",
      baseUrl: fake.url,
      apiKey: "",
      retryDelay: 0.01,
    });
    const events: StreamEvent[] = [];
    for await (
      const e of client.chat({ model: "m", messages: [{ role: "user", content: "hi" }] })
    ) {
      events.push(e);
    }
    return { events, posts: fake.requests.filter((r) => r.method === "POST").length };
  } finally {
    await fake.close();
  }
}

for (const server of WORDINGS) {
  Deno.test(`a ${server} overflow fails the stream at once with code context_overflow`, async () => {
    const { events, posts } = await streamed([overflowReply(server, 5000, 4096)]);
    assert.equal(posts, 1, "an overflow is never retried by the client");
    const error = events.find((e) => e.type === "error");
    assert.equal(error?.type === "error" && error.code, CONTEXT_OVERFLOW);
    assert.deepEqual(events.at(-1), { type: "done", reason: "error" });
  });
}

Deno.test("an overflow reported inside the stream is a context_overflow too", async () => {
  const raw = `data: ${
    JSON.stringify({ error: { message: "the request exceeds the available context size" } })
  }\n\n`;
  const { events } = await streamed([{ raw }]);
  const error = events.find((e) => e.type === "error");
  assert.equal(error?.type === "error" && error.code, CONTEXT_OVERFLOW);
});
