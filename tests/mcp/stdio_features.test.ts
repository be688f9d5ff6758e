import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { SessionStore } from "../../src/session/store.ts";
import { v2Stdio } from "./_clients.ts";

const SAVED = "svc://session/saved";
/** A 1x1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** Waits up to `ms` for `ready()`. */
async function until(ready: () => boolean, ms: number): Promise<void> {
  for (const at = performance.now(); !ready() && performance.now() - at < ms;) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("svc mcp (2025 era) sends run_command progress, filters logs by level, answers images and delivers subscribed session updates", async () => {
  await using box = await sandbox({});
  const store = new SessionStore(box.worktree);
  const session = await store.openOrCreate("saved");
  const note = (content: string) =>
    session.appendMessage({ role: "user", content, timestamp: "2026-01-01T00:00:00Z" });
  await note("hello");
  const client = await v2Stdio("legacy", box.worktree, box.env);
  const logs: unknown[] = [];
  const updated: string[] = [];
  client.setNotificationHandler("notifications/message", (n) => {
    logs.push(n.params);
  });
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    updated.push(n.params.uri);
  });
  try {
    // Progress: after a second the latest output line ("one"), then each newer one ("two").
    await client.setLoggingLevel("warning");
    const progress: Array<{ message?: string }> = [];
    const ran = await client.callTool({
      name: "run_command",
      arguments: { command: "echo one; sleep 1.3; echo two; sleep 0.5" },
    }, { onprogress: (p) => progress.push(p) });
    assert.match(
      (ran.content as Array<{ text: string }>)[0].text,
      /exit code 0\nstdout:\none\ntwo/,
    );
    assert.deepEqual(progress.map((p) => p.message), ["one", "two"]);
    // The lines went out as info messages, under the client's level: none arrived.
    assert.deepEqual(logs, []);
    await client.setLoggingLevel("info");
    const again = await client.callTool({
      name: "run_command",
      arguments: { command: "sleep 1.1; echo three; sleep 0.4" },
    });
    assert.equal(again.isError, undefined);
    assert.deepEqual(logs, [{ level: "info", data: "three", logger: "run_command" }]);

    // Images: file_read of a PNG answers image content beside its description.
    await Deno.writeFile(
      `${box.worktree}/dot.png`,
      Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)),
    );
    const image = await client.callTool({ name: "file_read", arguments: { path: "dot.png" } });
    assert.deepEqual(image.content, [
      { type: "text", text: "dot.png: image/png image (70 B), attached as an image" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);

    // Subscriptions: a change to a subscribed session is announced; after unsubscribing it is not.
    await client.subscribeResource({ uri: SAVED });
    await note("changed");
    await until(() => updated.length > 0, 3000);
    assert.deepEqual(updated, [SAVED]);
    await client.unsubscribeResource({ uri: SAVED });
    await note("changed again");
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(updated, [SAVED]);
  } finally {
    await client.close();
  }
});

Deno.test("svc mcp (2026-07-28) delivers a session's change on a subscriptions/listen subscription", async () => {
  await using box = await sandbox({});
  const session = await new SessionStore(box.worktree).openOrCreate("saved");
  const note = (content: string) =>
    session.appendMessage({ role: "user", content, timestamp: "2026-01-01T00:00:00Z" });
  await note("hello");
  const client = await v2Stdio("auto", box.worktree, box.env);
  const updated: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    updated.push(n.params.uri);
  });
  try {
    const subscription = await client.listen({ resourceSubscriptions: [SAVED] });
    await note("changed");
    await until(() => updated.length > 0, 3000);
    assert.deepEqual(updated, [SAVED]);
    await subscription.close();
  } finally {
    await client.close();
  }
});
