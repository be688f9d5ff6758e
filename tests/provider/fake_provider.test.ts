import assert from "node:assert/strict";
import { startFakeProvider } from "../_support/fake_provider.ts";

/** Posts a chat request and returns the raw SSE `data:` payloads plus the read count. */
async function readSse(url: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [], stream: true, ...body }),
  });
  const reads: Uint8Array[] = [];
  for await (const part of res.body!) reads.push(part);
  const text = new TextDecoder().decode(concat(reads));
  const data = text.split("\n\n").filter(Boolean).map((e) => e.replace(/^data: /, ""));
  return { status: res.status, data, reads };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

Deno.test("fake provider streams text chunks, a finish chunk, usage and [DONE]", async () => {
  const fake = await startFakeProvider([{
    text: "hello world",
    chunkSize: 6,
    usage: { total_tokens: 3 },
  }]);
  try {
    const { data } = await readSse(fake.url);
    const parsed = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.deepEqual(parsed.map((p) => p.choices[0]?.delta), [
      { content: "hello " },
      { content: "world" },
      {},
      undefined,
    ]);
    assert.deepEqual(parsed.map((p) => p.choices[0]?.finish_reason ?? null), [
      null,
      null,
      "stop",
      null,
    ]);
    assert.deepEqual(parsed[3].usage, { total_tokens: 3 });
    assert.equal(data.at(-1), "[DONE]");
    assert.equal(fake.requests[0].path, "/v1/chat/completions");
    assert.equal(fake.requests[0].body.model, "m");
  } finally {
    await fake.close();
  }
});

Deno.test("fake provider splits a multi-byte character across two network writes", async () => {
  const fake = await startFakeProvider([{ text: "é€", splitUtf8: true }]);
  try {
    const { reads, data } = await readSse(fake.url);
    const torn = reads.some((r) => {
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(r);
        return false;
      } catch {
        return true;
      }
    });
    assert.equal(torn, true);
    assert.equal(JSON.parse(data[0]).choices[0].delta.content, "é€");
  } finally {
    await fake.close();
  }
});

Deno.test("fake provider fragments tool-call arguments across deltas by index", async () => {
  const fake = await startFakeProvider([{
    tool_calls: [{ name: "a", arguments: { path: "x.txt" } }, { name: "b", arguments: "{}" }],
  }]);
  try {
    const { data } = await readSse(fake.url);
    const deltas = data.slice(0, -1).map((d) => JSON.parse(d).choices[0]);
    const args = ["", ""];
    for (const d of deltas) {
      for (const tc of d.delta.tool_calls ?? []) args[tc.index] += tc.function.arguments ?? "";
    }
    assert.deepEqual(args, ['{"path":"x.txt"}', "{}"]);
    const fragmentsOfFirst = deltas.filter((d) => d.delta.tool_calls?.[0].index === 0).length;
    assert.ok(fragmentsOfFirst > 2);
    assert.equal(deltas.at(-1).finish_reason, "tool_calls");
  } finally {
    await fake.close();
  }
});

Deno.test("fake provider answers errors, non-streaming, models and an exhausted script", async () => {
  const fake = await startFakeProvider([
    { status: 429, body: "slow down", headers: { "retry-after": "1" } },
    { text: "plain", usage: { total_tokens: 2 } },
  ], { models: ["a", "b"] });
  try {
    const first = await fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    assert.deepEqual([first.status, first.headers.get("retry-after"), await first.text()], [
      429,
      "1",
      "slow down",
    ]);
    const second = await fetch(`${fake.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: false }),
    });
    const json = await second.json();
    assert.deepEqual(json.choices, [{
      index: 0,
      message: { role: "assistant", content: "plain" },
      finish_reason: "stop",
    }]);
    const models = await (await fetch(`${fake.url}/v1/models`)).json();
    assert.deepEqual(models.data.map((m: { id: string }) => m.id), ["a", "b"]);
    const { data } = await readSse(fake.url);
    assert.equal(JSON.parse(data[0]).choices[0].delta.content, "(script ");
  } finally {
    await fake.close();
  }
});

Deno.test("fake provider cuts a stream without finish or [DONE]", async () => {
  const fake = await startFakeProvider([{ cut: true, text: "part" }]);
  try {
    const { data } = await readSse(fake.url);
    assert.deepEqual(data.map((d) => JSON.parse(d).choices[0]), [
      { index: 0, delta: { content: "part" }, finish_reason: null },
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("fake provider closes promptly with a stalled stream open", async () => {
  const fake = await startFakeProvider([{ stall: true, text: "x" }]);
  const res = await fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: "{}" });
  const reader = res.body!.getReader();
  await reader.read();
  const started = Date.now();
  await fake.close();
  assert.ok(Date.now() - started < 1000);
  await reader.cancel().catch(() => {});
});

Deno.test("fake provider replays raw bytes exactly, cut into the asked number of writes", async () => {
  const raw = new TextEncoder().encode('data: {"a":"é"}\r\n\r\ndata:[DONE]\r\n\r\n');
  const fake = await startFakeProvider([{ raw, writes: 3, headers: { "content-type": "x/y" } }]);
  try {
    const res = await fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    assert.equal(res.headers.get("content-type"), "x/y");
    const reads: Uint8Array[] = [];
    for await (const part of res.body!) reads.push(part);
    assert.deepEqual(concat(reads), raw);
    assert.ok(reads.length >= 2, `${reads.length} read(s)`);
  } finally {
    await fake.close();
  }
});
