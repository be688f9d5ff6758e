/**
 * Streaming: a 200 KB answer in 4,000 SSE chunks. Measures the CPU the engine spends above a
 * raw fetch that only drains the same stream.
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { harness } from "../../tests/_support/engine.ts";
import process from "node:process";
import { report } from "./_util.ts";

const text = "x".repeat(49) + "\n";
const answer = text.repeat(4000); // 200,000 characters
const reply = { text: answer, chunkSize: 50 };

/** Process CPU time (user + system) in milliseconds; the fake server runs in this process too. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const raw = await startFakeProvider(() => reply);
const rawCpu: number[] = [];
const rawWall: number[] = [];
for (let i = 0; i < 8; i++) {
  const c0 = cpuMs();
  const t0 = performance.now();
  const res = await fetch(`${raw.url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ stream: true, messages: [] }),
  });
  for await (const _ of res.body!) { /* drain */ }
  rawWall.push(performance.now() - t0);
  rawCpu.push(cpuMs() - c0);
}
await raw.close();

await using h = await harness(Array.from({ length: 9 }, () => reply));
const engCpu: number[] = [];
const engWall: number[] = [];
for (let i = 0; i < 9; i++) {
  const session = h.store.create(`s${i}`);
  const c0 = cpuMs();
  const t0 = performance.now();
  const result = await h.engine.runTurn("go", { session });
  if (result.content.length !== answer.length) throw new Error("answer incomplete");
  if (i === 0) continue; // warm-up
  engWall.push(performance.now() - t0);
  engCpu.push(cpuMs() - c0);
}
report("200 KB / 4,000 chunks: raw fetch drain wall", rawWall.slice(1));
report("200 KB / 4,000 chunks: engine turn wall", engWall);
report("200 KB / 4,000 chunks: raw drain CPU (incl. server)", rawCpu.slice(1));
report("200 KB / 4,000 chunks: engine turn CPU (incl. server)", engCpu, "ms", "< +100 ms");
