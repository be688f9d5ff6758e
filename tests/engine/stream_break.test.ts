import assert from "node:assert/strict";
import { harness, readStored } from "../_support/engine.ts";

/** The error each way of breaking the stream is reported with (idle timeout 0.2 s). */
const ERRORS = {
  cut: {
    code: "stream_incomplete",
    message: "Stream ended before a completion event; partial output kept",
  },
  stall: { code: "stall", message: "generic sent no output for 0.2s; the stream was abandoned" },
  error: { code: "provider_error", message: "generic reported an error: overloaded" },
} as const;

for (const breakWith of ["cut", "stall", "error"] as const) {
  Deno.test(`tool calls that arrived before the stream broke (${breakWith}) run and the loop continues`, async () => {
    await using h = await harness([
      {
        text: "Reading a.",
        tool_calls: [
          { name: "echo", arguments: { text: "a" } },
          { name: "echo", arguments: '{"text": "b' }, // cut mid-JSON: never runs
        ],
        breakWith,
      },
      { text: "a is a." },
    ], { config: { stream_idle_timeout: 0.2 } });
    const result = await h.engine.runTurn("go", { session: h.store.create("t") });

    const at = result.errors[0]?.at;
    assert.equal(result.usage?.estimated, true);
    assert.equal(typeof at, "string");
    assert.deepEqual({ ...result, duration: 0, tool_calls: result.tool_calls.map(timeless) }, {
      content: "Reading a.\n\na is a.",
      thinking: "",
      tool_calls: [{
        id: "call_0",
        name: "echo",
        arguments: { text: "a" },
        decision: "allow",
        ok: true,
        duration: 0,
      }],
      errors: [{ ...ERRORS[breakWith], at }],
      duration: 0,
      // Neither round reported usage: svc's estimate (issue 30).
      usage: result.usage,
      cost_usd: null,
      model: "fake-model",
      provider: "generic",
      session: "t",
      status: "ok",
      // The second round answered; the estimate is of that round's request.
      reason: "answered",
      rounds: 2,
      context: { estimated_tokens: result.context.estimated_tokens, window: 32768 },
    });
    assert.equal(result.context.estimated_tokens > 0, true);

    const call = {
      id: "call_0",
      type: "function",
      function: { name: "echo", arguments: '{"text":"a"}' },
    };
    const stored = await readStored(h, "t");
    assert.deepEqual(stored.errors, [{ ...ERRORS[breakWith], at }]);
    const [user, assistant, tool, answer, ...rest] = stored.messages;
    assert.deepEqual([user.role, rest], ["user", []]);
    assert.deepEqual(
      {
        role: assistant.role,
        content: assistant.content,
        tool_calls: assistant.tool_calls,
        partial: assistant.partial,
        finish_reason: assistant.finish_reason,
      },
      {
        role: "assistant",
        content: "Reading a.",
        tool_calls: [call],
        partial: true,
        finish_reason: "error",
      },
    );
    assert.deepEqual([tool.role, tool.tool_call_id, tool.content], [
      "tool",
      "call_0",
      'echo: {"text":"a"}',
    ]);
    assert.deepEqual([answer.role, answer.content], ["assistant", "a is a."]);

    // The next round was a new request carrying the call and its result.
    assert.equal(h.fake.requests.length, 2);
    const sent = h.fake.requests[1].body.messages.slice(-2);
    assert.deepEqual(sent, [
      { role: "assistant", content: "Reading a.", tool_calls: [call] },
      { role: "tool", tool_call_id: "call_0", content: 'echo: {"text":"a"}' },
    ]);
  });
}

function timeless<T extends { duration: number }>(record: T): T {
  return { ...record, duration: 0 };
}
