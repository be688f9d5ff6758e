import assert from "node:assert/strict";
import { MemorySession } from "../../src/session/memory.ts";
import { SessionStore } from "../../src/session/store.ts";
import { LIVE_TOOL_MESSAGES } from "../../src/session/live.ts";
import type { SessionLog } from "../../src/session/log.ts";

/** One tool round: the call, then its result, stored as "stored <i>" with the full copy live. */
async function toolRound(session: SessionLog, i: number, shaped = true): Promise<void> {
  const id = `call_${i}`;
  await session.appendMessage({
    role: "assistant",
    content: "",
    timestamp: "t",
    tool_calls: [{ id, type: "function", function: { name: "file_read", arguments: "{}" } }],
  });
  const content = shaped ? `stored ${i}` : `full ${i}`;
  await session.appendMessage(
    { role: "tool", content, timestamp: "t", tool_call_id: id, name: "file_read", ok: true },
    { live: `full ${i}` },
  );
}

async function withSessions(fn: (session: SessionLog) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(new SessionStore(dir).create("demo"));
    await fn(new MemorySession("demo"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a session keeps full tool results only for the last 16 tool messages", async () => {
  await withSessions(async (session) => {
    assert.equal(LIVE_TOOL_MESSAGES, 16);
    const rounds = LIVE_TOOL_MESSAGES + 4;
    // Round 18 was not shaped: it holds no full copy but still counts as a recent tool message.
    for (let i = 1; i <= rounds; i++) await toolRound(session, i, i !== 18);
    const kept = Array.from({ length: rounds }, (_, k) => k + 1)
      .filter((i) => session.live.get(`call_${i}`) !== undefined);
    assert.deepEqual(kept, [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 20]);
    assert.equal(session.live.get("call_20"), "full 20");
  });
});

Deno.test("a compaction record drops the full results before its boundary", async () => {
  await withSessions(async (session) => {
    await session.appendMessage({ role: "user", content: "first", timestamp: "t" });
    await toolRound(session, 1);
    const boundary = session.data.messages.length;
    await session.appendMessage({ role: "user", content: "second", timestamp: "t" });
    await toolRound(session, 2);
    await session.appendMessage({
      role: "system",
      content: "summary",
      timestamp: "t",
      compact_from: boundary,
    });
    assert.deepEqual([session.live.get("call_1"), session.live.get("call_2")], [
      undefined,
      "full 2",
    ]);
  });
});
