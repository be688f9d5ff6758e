/**
 * The corpus of recorded stream transcripts (fixtures/streams/corpus.ts), each replayed byte for
 * byte over real HTTP by one scripted server and read by the real client and the engine's round
 * reader (streamRound: `<think>` splitting, redaction), in process.
 */
import assert from "node:assert/strict";
import { CORPUS, type Expected, type Transcript } from "./fixtures/streams/corpus.ts";
import { type Reply, startFakeProvider } from "../_support/fake_provider.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { originOf } from "../../src/provider/provider_fields.ts";
import { streamRound } from "../../src/engine/round.ts";

const DIR = new URL("./fixtures/streams/", import.meta.url);

/** The reply that serves `t` (its file is named by the request's model). */
async function replyOf(t: Transcript): Promise<Reply> {
  const bytes = await Deno.readFile(new URL(t.file, DIR));
  const type = t.contentType ??
    (t.file.endsWith(".json") ? "application/json" : "text/event-stream");
  if (t.status) {
    return {
      status: t.status,
      body: new TextDecoder().decode(bytes),
      headers: { "content-type": type },
    };
  }
  return { raw: bytes, writes: t.writes, headers: { "content-type": type } };
}

/** What svc read from one replayed transcript, in the shape of Expected. */
async function read(url: string, t: Transcript, index: number): Promise<Expected> {
  const client = createChatClient({
    provider: "generic",
    baseUrl: url,
    apiKey: "",
    streamRetries: 0,
    idleTimeout: 5,
  });
  const status: string[] = [];
  const out = await streamRound(client, {
    model: String(index),
    messages: [{ role: "user", content: "hi" }],
  }, {
    signal: new AbortController().signal,
    emit: (event) => event.type === "status" && status.push(event.message),
  });
  const { origin, ...fields } = out.providerFields ?? { origin: originOf("generic", url) };
  assert.equal(origin, originOf("generic", url), t.file);
  const got: Expected = { answer: out.content, finish: out.finishReason };
  if (out.thinking) got.thinking = out.thinking;
  if (out.toolCalls.length) {
    got.calls = out.toolCalls.map((c) => [c.id, c.function.name, c.function.arguments]);
  }
  if (out.error) got.error = { code: out.error.code, message: out.error.message };
  if (status.length) got.status = status;
  if (Object.keys(fields).length) got.fields = fields;
  if (out.usage) got.usage = out.usage;
  return got;
}

Deno.test("every recorded stream transcript reads as the answer, thinking, tool calls and error its server meant", async (t) => {
  const replies = await Promise.all(CORPUS.map(replyOf));
  const fake = await startFakeProvider((body) => replies[Number(body.model)]);
  try {
    for (const [index, transcript] of CORPUS.entries()) {
      const name = `${transcript.family}: ${transcript.file}` +
        (transcript.writes ? ` in ${transcript.writes} writes` : "");
      await t.step(name, async () => {
        const expected = { ...transcript.expect };
        if (expected.usage === undefined) delete expected.usage;
        const got = await read(fake.url, transcript, index);
        if (!transcript.expect.usage) delete got.usage;
        assert.deepEqual(got, expected);
      });
    }
  } finally {
    await fake.close();
  }
});

Deno.test("every transcript in the corpus names its source and exists", async () => {
  const files = new Set<string>();
  for await (const entry of Deno.readDir(DIR)) {
    if (entry.name !== "corpus.ts") files.add(entry.name);
  }
  const listed = new Set(CORPUS.map((t) => t.file));
  assert.deepEqual([...files].filter((f) => !listed.has(f)), []);
  for (const t of CORPUS) {
    assert.ok(files.has(t.file), t.file);
    assert.ok(t.source.length > 10, t.file);
  }
});
