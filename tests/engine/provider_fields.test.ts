/**
 * Fields a provider sends that svc does not read (Gemini's thought signatures) survive the
 * session and go back to that provider on the next request, and to no other provider.
 */
import assert from "node:assert/strict";
import { echoTool, harness, readStored } from "../_support/engine.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { originOf } from "../../src/provider/provider_fields.ts";
import { buildContext } from "../../src/engine/context.ts";

const GEMINI = new URL(
  "../provider/fixtures/streams/gemini-parallel-no-index.sse",
  import.meta.url,
);
const SIGNATURE = { google: { thought_signature: "CiQBjz1rX3h0c2lnLWEK" } };
const calls = [
  {
    id: "function-call-1",
    type: "function",
    function: { name: "file_read", arguments: '{"path":"a.txt"}' },
  },
  {
    id: "function-call-2",
    type: "function",
    function: { name: "file_read", arguments: '{"path":"b.txt"}' },
  },
];

Deno.test("a thought signature on a tool call is kept in the session and sent back unchanged to the provider that sent it, and to no other", async () => {
  await using h = await harness([
    { raw: await Deno.readFile(GEMINI) },
    { text: "Both read." },
    { text: "Hello from elsewhere." },
  ], { tools: [echoTool("file_read")] });
  const session = h.store.create("g");
  const result = await h.engine.runTurn("read a.txt and b.txt", { session });
  assert.equal(result.status, "ok");
  assert.equal(result.content, "Both read.");
  const stored = await readStored(h, "g");
  assert.deepEqual(stored.messages[1].provider_fields, {
    origin: originOf("generic", h.fake.url),
    tool_calls: { "function-call-1": { extra_content: SIGNATURE } },
  });
  const resent = h.fake.requests[1].body.messages.find((m: { role: string }) =>
    m.role === "assistant"
  );
  assert.deepEqual(resent, {
    role: "assistant",
    content: "",
    tool_calls: [{ ...calls[0], extra_content: SIGNATURE }, calls[1]],
  });

  // The conversation moves to another provider (another id at the same address is another
  // origin): the same stored history goes out without the kept fields.
  const other = createChatClient({ provider: "openai", baseUrl: h.fake.url, apiKey: "" });
  const messages = buildContext([], session.data.messages);
  for await (const _ of other.chat({ model: "m", messages })) { /* drain */ }
  const moved = h.fake.requests[2].body.messages.find((m: { role: string }) =>
    m.role === "assistant"
  );
  assert.deepEqual(moved, { role: "assistant", content: "", tool_calls: calls });
});
