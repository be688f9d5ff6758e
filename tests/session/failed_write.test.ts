import assert from "node:assert/strict";
import { SessionStore } from "../../src/session/store.ts";
import { mountTmpfs, TMPFS_MISSING } from "../_support/tmpfs.ts";

const contents = (messages: ReadonlyArray<{ content: string | null }>) =>
  messages.map((m) => m.content);

Deno.test({
  name: "appends whose write failed on a full disk are never saved by a later write; a " +
    "retried error is",
  ignore: TMPFS_MISSING !== null,
  async fn() {
    await using disk = await mountTmpfs(256);
    const store = new SessionStore(disk.dir);
    const session = store.create("s");
    await session.appendMessage({ role: "user", content: "saved", timestamp: "t" });
    await disk.fill();
    await assert.rejects(
      () => session.appendMessage({ role: "user", content: "lost", timestamp: "t" }),
      /No space left on device/,
    );
    const error = { code: "session_write", message: "could not write" };
    await assert.rejects(() => session.appendError(error, { retry: true }), /No space left/);
    await assert.rejects(() => session.sync(), /No space left/);
    // Memory holds what the file holds, plus the error that waits for a write.
    assert.deepEqual([contents(session.data.messages), session.data.errors], [["saved"], [error]]);
    await disk.free();
    await session.appendMessage({ role: "user", content: "later", timestamp: "t" });
    await session.sync();
    const stored = await store.read("s");
    assert.deepEqual([contents(stored.messages), stored.errors], [["saved", "later"], [error]]);
  },
});
