/**
 * The done-when of issue 29 through a real `svc serve` (200 turns take about 2 s): one session
 * driven through every turn against a scripted backend whose window shrinks each quarter of the
 * run, refusing a longer request as llama.cpp, Ollama, vLLM and OpenAI word it.
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { overflowReply, requestTokens, WORDINGS } from "../_support/overflow_backend.ts";
import { startServe, writeConfig } from "./_serve.ts";

const TURNS = 200;
/**
 * The room left above the first request (system prompt and tool schemas) in each quarter. Each is
 * below the threshold (0.95) of the window the previous quarter's refusal taught svc, so every
 * wording is met; the smallest still holds the summary and the kept turns.
 */
const ROOM = [1600, 1250, 950, 700];

Deno.test(`${TURNS} POST /chat turns of one svc serve session all succeed while the backend refuses long requests in four wordings`, async () => {
  await using box = await sandbox();
  let turn = 0;
  let base = 0;
  const refused: string[] = [];
  const fake = await startFakeProvider((body) => {
    const tokens = requestTokens(body);
    base ||= tokens;
    const quarter = Math.min(3, Math.floor(turn / (TURNS / 4)));
    const window = base + ROOM[quarter];
    if (tokens > window) {
      refused.push(WORDINGS[quarter]);
      return overflowReply(WORDINGS[quarter], tokens, window);
    }
    if (body?.stream === false) return { text: "SUMMARY of the earlier turns" };
    return { text: `answer ${"x".repeat(200)}` };
  });
  await writeConfig(box.worktree, fake.url, { "compaction.threshold": 0.95 });
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    for (; turn < TURNS; turn++) {
      const res = await served.fetch(`${served.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt: `${turn}: ${"question ".repeat(30)}`, session_id: "long" }),
      });
      const result = await res.json();
      assert.equal(res.status, 200, `turn ${turn}: ${JSON.stringify(result)}`);
      assert.equal(result.status, "ok", `turn ${turn}: ${JSON.stringify(result.errors)}`);
      assert.ok(result.context.estimated_tokens <= result.context.window, `turn ${turn}`);
    }
  } finally {
    await served.stop();
    await fake.close();
  }
  // Every wording was met, each refusal once: then svc compacted before the backend refused.
  assert.deepEqual(refused, [...WORDINGS]);
  const stored = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/sessions/long.json`));
  const messages: Array<{ role: string; compaction?: { trigger: string; reason: string } }> =
    stored.messages;
  const reasons = messages.flatMap((m) => m.compaction ? [m.compaction.reason] : []);
  assert.equal(reasons.filter((r) => r === "overflow").length, 4);
  assert.ok(reasons.filter((r) => r === "threshold").length >= 10, reasons.join(","));
  assert.ok(messages.every((m) => !m.compaction || m.compaction.trigger === "auto"));
  // Append-only: every prompt is still in the file.
  assert.equal(messages.filter((m) => m.role === "user").length, TURNS);
});
