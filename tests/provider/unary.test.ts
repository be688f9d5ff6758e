import assert from "node:assert/strict";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { createChatClient } from "../../src/provider/mod.ts";

const request = { model: "m", messages: [{ role: "user" as const, content: "sum up" }] };

Deno.test("chatNonStreaming returns content and usage from a stream:false call", async () => {
  const fake = await startFakeProvider([{ text: "summary", usage: { total_tokens: 7 } }]);
  try {
    const client = createChatClient({ provider: "openai", baseUrl: fake.url, apiKey: "k" });
    assert.deepEqual(await client.chatNonStreaming(request), {
      content: "summary",
      usage: { total_tokens: 7 },
    });
    assert.deepEqual(fake.requests[0].body, {
      model: "m",
      messages: request.messages,
      stream: false,
      reasoning_effort: "medium",
    });
    assert.equal(fake.requests[0].headers.authorization, "Bearer k");
  } finally {
    await fake.close();
  }
});

Deno.test("chatNonStreaming reports HTTP errors and timeouts without throwing", async () => {
  const fake = await startFakeProvider([
    { status: 503, body: "upstream down" },
    { stall: true },
  ]);
  try {
    const client = createChatClient({
      provider: "generic",
      baseUrl: fake.url,
      apiKey: "",
      requestTimeout: 0.2,
    });
    assert.deepEqual(await client.chatNonStreaming(request), {
      content: "",
      error: "generic returned HTTP 503: upstream down",
    });
    assert.deepEqual(await client.chatNonStreaming(request), {
      content: "",
      error: `Chat request to generic at ${fake.url} failed: No answer within 0.2s`,
    });
  } finally {
    await fake.close();
  }
});

Deno.test("listModels returns the ids of GET /v1/models", async () => {
  const fake = await startFakeProvider([], { models: ["a", "b"] });
  try {
    const client = createChatClient({
      provider: "generic",
      baseUrl: `${fake.url}/v1/`,
      apiKey: "",
    });
    assert.deepEqual(await client.listModels(), ["a", "b"]);
    assert.equal(fake.requests[0].path, "/v1/models");
  } finally {
    await fake.close();
  }
});

Deno.test("listModels throws a readable error when the backend is unreachable", async () => {
  const fake = await startFakeProvider([]);
  await fake.close();
  const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
  await assert.rejects(client.listModels(), (err: Error) => {
    assert.match(
      err.message,
      /^Listing models of generic at http:\/\/127\.0\.0\.1:\d+ failed: Could not connect: /,
    );
    return true;
  });
});

Deno.test("chatNonStreaming reports an error answer of any shape, and a body that is not JSON, in the server's words", async () => {
  const fake = await startFakeProvider([
    { raw: '{"object":"error","message":"The model `m` does not exist.","code":404}' },
    { raw: '[{"error":{"code":400,"message":"Bad thing","status":"INVALID_ARGUMENT"}}]' },
    { raw: "Internal Server Error", headers: { "content-type": "text/plain" } },
  ]);
  try {
    const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
    const errors = [];
    for (let i = 0; i < 3; i++) errors.push((await client.chatNonStreaming(request)).error);
    assert.deepEqual(errors, [
      "generic reported an error: The model `m` does not exist.",
      "generic reported an error: Bad thing",
      "generic answered with something other than JSON: Internal Server Error",
    ]);
  } finally {
    await fake.close();
  }
});
