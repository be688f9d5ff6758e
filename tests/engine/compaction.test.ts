import assert from "node:assert/strict";
import { compactSession } from "../../src/engine/compaction.ts";
import { harness, readStored } from "../_support/engine.ts";

Deno.test("compaction summarizes older messages, keeps compact_keep verbatim and the full file", async () => {
  await using h = await harness([
    { text: "a1" },
    { text: "a2" },
    { text: "a3" },
    { text: "SUMMARY" },
    { text: "a4" },
  ]);
  const session = h.store.create("c");
  for (const p of ["q1", "q2", "q3"]) await h.engine.runTurn(p, { session });
  const result = await compactSession(session, h.engine.deps.client, {
    model: "fake-model",
    keep: 2,
  });
  // The summary request's usage (estimated: the script reports none) counts in the turn's.
  assert.deepEqual({ ...result, usage: undefined }, {
    ok: true,
    summarized: 4,
    kept: 2,
    usage: undefined,
  });
  assert.equal(result.ok && result.usage.estimated, true);
  await h.engine.runTurn("q4", { session });
  const sent = h.fake.requests[4].body.messages;
  assert.deepEqual(
    sent.map((m: { role: string; content: string }) => [m.role, m.content]).slice(1),
    [
      ["system", "Summary of the earlier conversation:\nSUMMARY"],
      ["user", "q3"],
      ["assistant", "a3"],
      ["user", "q4"],
    ],
  );
  const stored = await readStored(h, "c");
  assert.equal(stored.messages.length, 9);
  assert.equal(stored.messages[6].compact_from, 4);
});

Deno.test("compaction with too few messages does nothing", async () => {
  await using h = await harness([{ text: "a1" }]);
  const session = h.store.create("c");
  await h.engine.runTurn("q1", { session });
  const result = await compactSession(session, h.engine.deps.client, {
    model: "fake-model",
    keep: 4,
  });
  assert.deepEqual(result, { ok: false, message: "Nothing to compact yet" });
});

Deno.test("compaction neither keeps nor counts command records as kept messages", async () => {
  await using h = await harness([{ text: "a1" }, { text: "a2" }, { text: "a3" }, {
    text: "SUMMARY",
  }]);
  const session = h.store.create("c");
  const command = (content: string) =>
    session.appendMessage({ role: "command", content, timestamp: new Date().toISOString() });
  for (const p of ["q1", "q2", "q3"]) {
    await h.engine.runTurn(p, { session });
    await command("/help");
  }
  await command("/compact");
  const result = await compactSession(session, h.engine.deps.client, {
    model: "fake-model",
    keep: 2,
  });
  assert.deepEqual({ ...result, usage: undefined }, {
    ok: true,
    summarized: 4,
    kept: 2,
    usage: undefined,
  });
  const stored = await readStored(h, "c");
  // q3 and a3 stay verbatim: the boundary is q3's index, commands after it not counted.
  assert.equal(stored.messages.at(-1).compact_from, 6);
  assert.equal(stored.messages[6].content, "q3");
});
