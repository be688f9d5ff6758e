import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { mountTmpfs, TMPFS_MISSING } from "../_support/tmpfs.ts";
import { startServe, writeConfig } from "./_serve.ts";

Deno.test({
  name: "under a full disk svc serve answers what is on disk: the error, no late save, and the " +
    "error stored once space is back",
  ignore: TMPFS_MISSING !== null,
  async fn() {
    await using box = await sandbox();
    await using disk = await mountTmpfs(1024);
    const fake = await startFakeProvider((body) => ({
      text: `answer to ${body.messages.at(-1).content}`,
    }));
    await writeConfig(disk.dir, fake.url);
    const served = await startServe([], { cwd: disk.dir, env: box.env });
    const chat = async (prompt: string) => {
      const res = await served.fetch(`${served.url}/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt, session_id: "s" }),
      });
      return { status: res.status, body: await res.json() };
    };
    try {
      assert.equal((await chat("one")).status, 200);
      await disk.fill();
      const full = await chat("two");
      const path = `${disk.dir}/.svc/sessions/s.json`;
      assert.equal(full.body.usage?.estimated, true);
      assert.deepEqual({ ...full, body: { ...full.body, duration: 0 } }, {
        status: 502,
        body: {
          content: "answer to two",
          thinking: "",
          tool_calls: [],
          errors: [{
            code: "session_write",
            message: `Could not write the session s (${path}): No space left on device ` +
              "(os error 28); what this turn produced since its last saved message is in this " +
              "result only. Free space or fix the folder, then send the prompt again",
            at: full.body.errors[0]?.at,
          }],
          duration: 0,
          // The backend reported no usage: svc's estimate (issue 30).
          usage: full.body.usage,
          cost_usd: null,
          model: "m",
          provider: "generic",
          session: "s",
          status: "error",
          reason: "session_write",
          rounds: 1,
          context: { estimated_tokens: full.body.context.estimated_tokens, window: 32768 },
        },
      });
      await disk.free();
      const after = await chat("three");
      assert.deepEqual([after.status, after.body.status, after.body.errors], [200, "ok", []]);
      // The file: the turns that were answered ok, and the error the client was told; the answer
      // to "two" that was reported as not saved is not saved later either.
      const stored = JSON.parse(await Deno.readTextFile(path));
      assert.deepEqual(
        {
          messages: stored.messages.map((m: { role: string; content: string }) =>
            `${m.role}: ${m.content}`
          ),
          errors: stored.errors,
        },
        {
          messages: [
            "user: one",
            "assistant: answer to one",
            "user: three",
            "assistant: answer to three",
          ],
          errors: full.body.errors,
        },
      );
    } finally {
      await served.stop();
      await fake.close();
    }
  },
});
