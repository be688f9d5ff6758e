import assert from "node:assert/strict";
import { CoalescedWriter } from "../../src/util/coalesced_writer.ts";

/** A sink that records each write and accepts at most `limit` bytes per call. */
function recordingSink(limit = Infinity) {
  const writes: string[] = [];
  const decoder = new TextDecoder();
  return {
    writes,
    sink: (bytes: Uint8Array) => {
      const n = Math.min(bytes.length, limit);
      writes.push(decoder.decode(bytes.subarray(0, n)));
      return n;
    },
  };
}

Deno.test("streamed text within one frame reaches the sink as one write", async () => {
  const { writes, sink } = recordingSink();
  const out = new CoalescedWriter(sink, 20);
  for (let i = 0; i < 100; i++) out.write(`t${i} `);
  assert.deepEqual(writes, []);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(writes, [Array.from({ length: 100 }, (_, i) => `t${i} `).join("")]);
});

Deno.test("a full batch is written at once and flush writes the rest before other output", () => {
  const { writes, sink } = recordingSink();
  const out = new CoalescedWriter(sink, 10_000, 10);
  out.write("12345");
  out.write("67890");
  out.write("ab");
  assert.deepEqual(writes, ["1234567890"]);
  out.flush();
  out.flush();
  assert.deepEqual(writes, ["1234567890", "ab"]);
});

Deno.test("a sink that takes part of a write is given the rest until all is written", () => {
  const chunks: Uint8Array[] = [];
  const out = new CoalescedWriter((bytes) => {
    chunks.push(bytes.slice(0, 3));
    return Math.min(bytes.length, 3);
  });
  out.write("héllo wörld");
  out.flush();
  assert.deepEqual(chunks.map((c) => c.length), [3, 3, 3, 3, 1]);
  const joined = new Uint8Array(chunks.flatMap((c) => [...c]));
  assert.equal(new TextDecoder().decode(joined), "héllo wörld");
});
