/**
 * A broken or hostile backend cannot make the client hold unbounded memory or read forever:
 * a real loopback server streams endless or enormous bodies, and each test checks both what the
 * client reports and that the server saw the client stop reading long before the body ended.
 */
import assert from "node:assert/strict";
import { createChatClient, type StreamEvent } from "../../src/provider/mod.ts";
import { MAX_EVENT_CHARS, MAX_RESPONSE_BYTES } from "../../src/provider/stream_attempt.ts";
import { MAX_UNARY_BODY } from "../../src/provider/unary.ts";

const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
const encoder = new TextEncoder();

/** Serves `chunk()` repeatedly (after `head`) until the client stops or `limit` bytes went out. */
async function withEndlessServer(
  spec: { status?: number; head?: string; chunk: string; limit: number },
  fn: (url: string, sent: () => number) => Promise<void>,
): Promise<void> {
  let sent = 0;
  const head = encoder.encode(spec.head ?? "");
  const chunk = encoder.encode(spec.chunk);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    let first = true;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= spec.limit) return controller.close();
        const bytes = first ? head : chunk;
        first = false;
        sent += bytes.length;
        controller.enqueue(bytes);
      },
    }, { highWaterMark: 0 });
    return new Response(body, {
      status: spec.status ?? 200,
      headers: { "content-type": "text/event-stream" },
    });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, () => sent);
  } finally {
    await server.shutdown();
  }
}

async function collect(stream: AsyncGenerator<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    if (event.type !== "token") events.push(event);
  }
  return events;
}

const client = (baseUrl: string) =>
  createChatClient({ provider: "generic", baseUrl, apiKey: "", retryDelay: 0.01 });

Deno.test("an SSE line that never ends fails the round at 16 MiB with stream_oversized", async () => {
  await withEndlessServer(
    { head: "data: ", chunk: "x".repeat(64 * 1024), limit: 1 << 30 },
    async (url, sent) => {
      const events = await collect(client(url).chat(request));
      assert.deepEqual(events, [
        {
          type: "error",
          code: "stream_oversized",
          message: "generic sent more than svc accepts: one stream event exceeded 16 MiB; " +
            "the stream was abandoned",
        },
        { type: "done", reason: "error" },
      ]);
      // Socket and stream buffers hold some MiB more than the client read; 1 GiB was on offer.
      assert.ok(sent() < MAX_EVENT_CHARS * 4, `server sent ${sent()} bytes`);
    },
  );
});

Deno.test("an answer that streams valid events forever stops at 128 MiB, keeping its text", async () => {
  const delta = JSON.stringify({ choices: [{ delta: { content: "y".repeat(1 << 20) } }] });
  await withEndlessServer(
    { chunk: `data: ${delta}\n\n`, limit: 1 << 30 },
    async (url, sent) => {
      let text = 0;
      const events: StreamEvent[] = [];
      for await (const event of client(url).chat(request)) {
        if (event.type === "token") text += event.content.length;
        else events.push(event);
      }
      assert.deepEqual(events, [
        {
          type: "error",
          code: "stream_oversized",
          message: "generic sent more than svc accepts: the response exceeded 128 MiB; " +
            "the stream was abandoned",
        },
        { type: "done", reason: "error" },
      ]);
      assert.ok(text >= 100 << 20, `kept ${text} characters`);
      assert.ok(sent() < MAX_RESPONSE_BYTES * 2, `server sent ${sent()} bytes`);
    },
  );
});

Deno.test("an endless error body is read only as far as its first 4 KiB", async () => {
  await withEndlessServer(
    {
      status: 400,
      head: '{"error": {"message": "bad request',
      chunk: "z".repeat(65536),
      limit: 1 << 30,
    },
    async (url, sent) => {
      const events = await collect(client(url).chat(request));
      assert.equal(events.length, 2);
      assert.equal(events[0].type === "error" && events[0].code, "http_400");
      assert.ok(sent() < 64 << 20, `server sent ${sent()} bytes`);
    },
  );
});

Deno.test("a non-streaming answer or model list over 32 MiB is refused unread", async () => {
  await withEndlessServer(
    { head: '{"data": ["', chunk: "m".repeat(1 << 20), limit: 1 << 30 },
    async (url, sent) => {
      await assert.rejects(
        () => client(url).listModels(),
        new Error(
          `Listing models of generic at ${url} failed: The answer exceeded 32 MiB`,
        ),
      );
      const answer = await client(url).chatNonStreaming(request);
      assert.deepEqual(answer, {
        content: "",
        error: `Chat request to generic at ${url} failed: The answer exceeded 32 MiB`,
      });
      assert.ok(sent() < 4 * MAX_UNARY_BODY, `server sent ${sent()} bytes`);
    },
  );
});
