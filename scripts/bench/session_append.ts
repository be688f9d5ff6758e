/** Appending one message to sessions of 10, 1,000 and 5,000 messages (crash-safe rewrite). */
import { SessionStore } from "../../src/session/store.ts";
import { report } from "./_util.ts";

const dir = await Deno.makeTempDir();
const store = new SessionStore(dir);
const body = "A typical message of a coding session, a few sentences long. ".repeat(6);
for (const size of [10, 1000, 5000]) {
  const now = new Date().toISOString();
  const messages = Array.from({ length: size }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: body,
    timestamp: now,
  }));
  await Deno.mkdir(store.dir, { recursive: true });
  await Deno.writeTextFile(
    `${store.dir}/s${size}.json`,
    JSON.stringify({
      name: `s${size}`,
      created_at: now,
      updated_at: now,
      messages,
      errors: [],
      permissions: [],
    }),
  );
  const loaded = await store.openOrCreate(`s${size}`);
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await loaded.appendMessage({ role: "assistant", content: body, timestamp: now });
    times.push(performance.now() - t0);
  }
  const kb = (await Deno.stat(loaded.path)).size / 1024;
  report(
    `append to a ${size}-message session (${kb.toFixed(0)} KB)`,
    times,
    "ms",
    size === 5000 ? "< 10 ms" : undefined,
  );
}
await Deno.remove(dir, { recursive: true });
