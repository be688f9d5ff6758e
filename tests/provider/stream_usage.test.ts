import assert from "node:assert/strict";
import { createChatClient } from "../../src/provider/sse_client.ts";
import type { StreamEvent } from "../../src/provider/types.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

async function collect(stream: AsyncGenerator<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

Deno.test("a server that refuses stream_options gets the request again without it, and never again", async () => {
  const fake = await startFakeProvider((body: { stream_options?: unknown }) =>
    body.stream_options
      ? {
        status: 400,
        body: '{"error":{"message":"Unrecognized request argument supplied: stream_options"}}',
      }
      : { text: "ok" }
  );
  try {
    const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
    const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
    const first = await collect(client.chat(request));
    assert.deepEqual(first.at(-1), { type: "done", reason: "stop" });
    assert.deepEqual(first.filter((e) => e.type === "error"), []);
    await collect(client.chat(request));
    assert.deepEqual(
      fake.requests.map((r) => r.body.stream_options ?? null),
      [{ include_usage: true }, null, null],
    );
  } finally {
    await fake.close();
  }
});

Deno.test("another HTTP 400 is not mistaken for a refused stream_options", async () => {
  const fake = await startFakeProvider([{
    status: 400,
    body: '{"error":{"message":"bad model"}}',
  }]);
  try {
    const client = createChatClient({ provider: "generic", baseUrl: fake.url, apiKey: "" });
    const events = await collect(
      client.chat({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    );
    assert.equal(fake.requests.length, 1);
    assert.deepEqual(events.map((e) => e.type), ["error", "done"]);
  } finally {
    await fake.close();
  }
});
