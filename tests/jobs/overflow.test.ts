/**
 * The done-when of issue 29 for jobs: one job with a stable session (`--session`), run many times
 * in-process (as `svc jobs run` runs it) against a scripted backend whose window shrinks each
 * quarter, refusing longer requests as llama.cpp, Ollama, vLLM and OpenAI word it. 200 runs take
 * about 2 s alone on two cores (a register update, a turn and a run-memory summary each).
 */
import assert from "node:assert/strict";
import { overflowReply, requestTokens, WORDINGS } from "../_support/overflow_backend.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import { world } from "./_world.ts";

const RUNS = 200;
/** Tokens above the first request in each quarter (see tests/http/serve_overflow.test.ts). */
const ROOM = [1600, 1250, 950, 700];

Deno.test(`${RUNS} runs of a job with a stable session all succeed while the backend refuses long requests in four wordings`, async () => {
  let runs = 0;
  let base = 0;
  const refused: string[] = [];
  await using w = await world({
    reply: (body) => {
      const tokens = requestTokens(body);
      base ||= tokens;
      const quarter = Math.min(3, Math.floor(runs / (RUNS / 4)));
      const window = base + ROOM[quarter];
      if (tokens > window) {
        refused.push(WORDINGS[quarter]);
        return overflowReply(WORDINGS[quarter], tokens, window);
      }
      if (body?.stream === false) return { text: "SUMMARY of the earlier turns" };
      return { text: `answer ${"x".repeat(400)}` };
    },
  });
  const config = `${w.home}/.config/svc/config.json`;
  const global = JSON.parse(await Deno.readTextFile(config));
  await Deno.writeTextFile(config, JSON.stringify({ ...global, "compaction.threshold": 0.95 }));
  await w.add("long", { schedule: null, session: "job_long" });
  // One runtime for every run, as one daemon keeps it: a load per run would double the time.
  const runtime = await Runtime.load({ path: w.worktree });
  for (; runs < RUNS; runs++) {
    const report = await w.run("long", { runtime: () => Promise.resolve(runtime) });
    assert.ok(!("refused" in report), `run ${runs}`);
    assert.equal(report.state, "verified", `run ${runs}: ${report.error}`);
    assert.equal(report.attempts, 1);
  }
  await runtime.plugins.close();
  // Every wording was met, each refusal once: then svc compacted before the backend refused.
  assert.deepEqual(refused, [...WORDINGS]);
  const job = await w.job("long");
  assert.deepEqual(job.fired, { ok: RUNS, failed: 0 });
  assert.ok(job.history.every((a) => a.session === "job_long" && a.status === "ok"));
  const stored = JSON.parse(
    await Deno.readTextFile(`${w.worktree}/.svc/sessions/job_long.json`),
  );
  const messages: Array<{ role: string; compaction?: { reason: string } }> = stored.messages;
  const reasons = messages.flatMap((m) => m.compaction ? [m.compaction.reason] : []);
  assert.equal(reasons.filter((r) => r === "overflow").length, 4);
  assert.ok(reasons.filter((r) => r === "threshold").length >= 5, reasons.join(","));
  assert.equal(messages.filter((m) => m.role === "user").length, RUNS);
});
