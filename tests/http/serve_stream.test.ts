// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { startServe, writeConfig } from "./_serve.ts";

/** Reads a whole SSE body with a real parser: its events, and its comments. */
async function readEvents(res: Response): Promise<{ events: EventSourceMessage[]; raw: string }> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const raw = await res.text();
  parser.feed(raw);
  return { events, raw };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
};

Deno.test("svc serve streams a tool turn, answers a live approval and aborts turns over loopback", async (t) => {
  await using box = await sandbox();
  await Deno.writeTextFile(`${box.worktree}/notes.txt`, "alpha\nbeta\n");
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" }, id: "call_1" }] },
    { text: "It says alpha and beta." },
    { text: "plain" },
    { stall: true, text: "half an answ" },
    { stall: true, text: "stuck" },
    { text: "after" },
    { tool_calls: [{ name: "file_write", arguments: { path: "out.txt", content: "fine" } }] },
    { text: "written" },
  ]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    served.fetch(`${served.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  try {
    await t.step(
      "Accept: text/event-stream streams the stream-json lines of a two-round turn",
      async () => {
        const res = await post("/chat", { prompt: "Read notes.txt", session_id: "streamed" }, {
          accept: "text/event-stream",
        });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
        assert.equal(res.headers.get("cache-control"), "no-store, no-transform");
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        assert.equal(res.headers.get("access-control-allow-origin"), null);
        const { events } = await readEvents(res);
        const lines = events.map((e) => JSON.parse(e.data));
        assert.deepEqual(events.map((e) => e.event), lines.map((l) => l.type));
        assert.deepEqual(lines.map((l) => l.subtype ?? l.type), [
          "init",
          "assistant",
          "user",
          "assistant",
          "success",
        ]);
        assert.equal(lines[0].session_id, "streamed");
        assert.ok(lines[0].tools.includes("file_read"));
        assert.equal(lines[1].message.content[0].type, "tool_use");
        assert.deepEqual(lines[1].message.content[0].input, { path: "notes.txt" });
        const block = lines[2].message.content[0];
        assert.deepEqual([block.type, block.tool_use_id, block.is_error], [
          "tool_result",
          "call_1",
          false,
        ]);
        assert.match(block.content, /alpha/);
        const result = lines.at(-1);
        assert.equal(result.result, "It says alpha and beta.");
        assert.deepEqual([result.svc.status, result.svc.session, result.num_turns], [
          "ok",
          "streamed",
          2,
        ]);
      },
    );
    await t.step('"stream": true streams too; "stream" must be a boolean', async () => {
      const res = await post("/chat", { prompt: "hi", session_id: "streamed", stream: true });
      const lines = (await readEvents(res)).events.map((e) => JSON.parse(e.data));
      assert.equal(lines.at(-1).result, "plain");
      const bad = await post("/chat", { prompt: "hi", stream: "yes" });
      assert.deepEqual([bad.status, await bad.json()], [400, {
        error: "stream must be true or false",
      }]);
    });
    await t.step(
      "abort ends a running streamed turn as cancelled and keeps the partial answer",
      async () => {
        const before = fake.requests.length;
        const res = await post("/chat", { prompt: "long one", session_id: "long", stream: true });
        assert.equal(res.status, 200);
        await until(() => fake.requests.length > before);
        await new Promise((r) => setTimeout(r, 50));
        const aborted = await post("/sessions/long/abort");
        assert.deepEqual([aborted.status, await aborted.json()], [200, {
          session: "long",
          aborted: "running",
          running: true,
          queued: 0,
        }]);
        const lines = (await readEvents(res)).events.map((e) => JSON.parse(e.data));
        const result = lines.at(-1);
        assert.deepEqual([result.type, result.svc.status], ["result", "cancelled"]);
        const again = await post("/sessions/long/abort");
        assert.deepEqual([again.status, await again.json()], [409, {
          error: "nothing runs in session long",
        }]);
        const doc = await (await served.fetch(`${served.url}/sessions`)).json();
        assert.ok(doc.sessions.includes("long"));
        const file = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/sessions/long.json`));
        assert.deepEqual(file.messages.map((m: any) => m.content), ["long one", "half an answ"]);
      },
    );
    await t.step(
      "abort takes a waiting request out of the queue (409); the running one goes on",
      async () => {
        const before = fake.requests.length;
        const running = post("/chat", { prompt: "stuck", session_id: "first" });
        await until(() => fake.requests.length > before);
        const queued = post("/chat", { prompt: "waits", session_id: "second" });
        await new Promise((r) => setTimeout(r, 100));
        const aborted = await post("/sessions/second/abort");
        assert.equal((await aborted.json()).aborted, "queued");
        const left = await queued;
        assert.equal(left.status, 409);
        assert.match((await left.json()).error, /aborted by POST \/sessions\/\{id\}\/abort/);
        assert.equal((await post("/sessions/first/abort")).status, 200);
        const ended = await running;
        assert.deepEqual([ended.status, (await ended.json()).status], [503, "cancelled"]);
        const next = await post("/chat", { prompt: "go on", session_id: "first" });
        assert.equal((await next.json()).content, "after");
      },
    );
    await t.step("an ask-gated call is approved from the stream over loopback", async () => {
      const res = await post("/chat", { prompt: "write", session_id: "w", approvals: "client" }, {
        accept: "text/event-stream",
      });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      const lines: any[] = [];
      const parser = createParser({ onEvent: (e) => lines.push(JSON.parse(e.data)) });
      let asked: any;
      while (!asked) {
        const { value, done } = await reader.read();
        assert.ok(!done, "the stream ended before an approval_request");
        parser.feed(value);
        asked = lines.find((l) => l.event?.type === "approval_request")?.event;
      }
      assert.deepEqual([asked.tool, asked.args], ["file_write", {
        path: "out.txt",
        content: "fine",
      }]);
      const listed = await (await served.fetch(`${served.url}/approvals`)).json();
      assert.deepEqual(listed.approvals.map((a: any) => a.id), [asked.id]);
      const ok = await post(`/approvals/${asked.id}`, { answer: "once" });
      assert.deepEqual(await ok.json(), { id: asked.id, answer: "once" });
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
      assert.deepEqual([lines.at(-1).type, lines.at(-1).result], ["result", "written"]);
      assert.equal(await Deno.readTextFile(`${box.worktree}/out.txt`), "fine");
    });
    await t.step("abort refuses unknown sessions, bad ids, other methods, strangers", async () => {
      const missing = await post("/sessions/nobody/abort");
      assert.deepEqual([missing.status, await missing.json()], [404, {
        error: "no session nobody",
      }]);
      assert.equal((await post("/sessions/..%2Fetc/abort")).status, 400);
      assert.equal((await post("/sessions/.hidden/abort")).status, 400);
      const get = await served.fetch(`${served.url}/sessions/long/abort`);
      assert.deepEqual([get.status, get.headers.get("allow")], [405, "POST"]);
      await get.body?.cancel();
      const stranger = await fetch(`${served.url}/sessions/long/abort`, {
        method: "POST",
        headers: { authorization: "Bearer wrong-token-0123456789" },
      });
      assert.equal(stranger.status, 401);
      await stranger.body?.cancel();
      const foreign = await post("/sessions/long/abort", undefined, {
        origin: "http://evil.example",
      });
      assert.equal(foreign.status, 403);
      await foreign.body?.cancel();
      const big = await post("/sessions/nobody/abort", { pad: "x".repeat(2 * 1024 * 1024) });
      assert.equal(big.status, 404);
      await big.body?.cancel();
      assert.equal((await served.fetch(`${served.url}/health`)).status, 200);
    });
  } finally {
    await served.stop();
    await fake.close();
  }
});
