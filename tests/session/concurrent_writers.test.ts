import assert from "node:assert/strict";
import { SessionStore } from "../../src/session/store.ts";

const STORE = new URL("../../src/session/store.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** A child process that appends `count` messages `<writer>-<i>` to the session, one at a time. */
const WRITER = `import { SessionStore } from "${STORE}";
const [worktree, writer, count] = Deno.args;
const session = await new SessionStore(worktree).openOrCreate("shared");
for (let i = 0; i < Number(count); i++) {
  await session.appendMessage({ role: "user", content: writer + "-" + i, timestamp: "t" });
}`;

Deno.test("three processes appending to one session lose no message", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-writers-" });
  const script = `${dir}/writer.ts`;
  await Deno.writeTextFile(script, WRITER);
  const writers = ["a", "b", "c"];
  const count = 60;
  const children = writers.map((writer) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", CONFIG, script, dir, writer, String(count)],
      stdout: "inherit",
      stderr: "inherit",
    }).spawn()
  );
  const codes = await Promise.all(children.map(async (child) => (await child.status).code));
  assert.deepEqual(codes, [0, 0, 0]);
  const stored = (await new SessionStore(dir).read("shared")).messages.map((m) => m.content);
  // Every message is there, and each writer's messages keep their order.
  const byWriter = writers.map((w) => stored.filter((c) => c?.startsWith(`${w}-`)));
  const expected = writers.map((w) => Array.from({ length: count }, (_, i) => `${w}-${i}`));
  assert.deepEqual(byWriter, expected);
  assert.equal(stored.length, writers.length * count);
  await Deno.remove(dir, { recursive: true });
});
