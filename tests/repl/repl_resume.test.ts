// deno-lint-ignore-file no-explicit-any
/** `svc --continue`, `/fork` and `/resume` (its picker and a ref) in a real pseudo-terminal. */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { minutesAgo, seedSession } from "../_support/sessions.ts";
import { needs } from "../_support/tools.ts";
import { PtyRepl } from "./_pty.ts";

const OLD = "ses_20260101_090000_old-work";
const NEW = "ses_20260102_090000_new-work";

Deno.test(
  "svc --continue opens the newest session; /fork 1 copies its first turn into a linked session; /resume picks with the arrow keys and takes a prefix (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox();
    await seedSession(box.worktree, { name: OLD, turns: 2, mtime: minutesAgo(30) });
    const newPath = await seedSession(box.worktree, { name: NEW, turns: 1, mtime: minutesAgo(5) });
    const fake = await startFakeProvider((body: any) => ({
      text: `echo: ${body.messages.at(-1).content} after ${body.messages.length} messages`,
    }));
    await Deno.writeTextFile(
      `${box.worktree}/.svc/config.json`,
      JSON.stringify({ base_url: fake.url, model: "fake-model" }),
    );
    const repl = new PtyRepl({
      cwd: box.worktree,
      env: box.env,
      columns: 200,
      args: ["--continue"],
    });
    try {
      await repl.waitFor(new RegExp(`resumed ${NEW} \\(2 messages\\)`));
      await repl.send("hello\r");
      await repl.waitFor(/echo: hello after \d+ messages/);
      const sent = fake.requests.at(-1)!.body.messages.map((m: any) => m.content);
      assert.ok(sent.includes(`${NEW} q1`), JSON.stringify(sent));

      await repl.send("/fork 1\r");
      const forkedText = await repl.waitFor(/forked \S+ at turn 1 into (ses_\S+) \(2 messages\)/);
      const forked = /into (ses_\S+) \(2 messages\)/.exec(forkedText)![1];
      const doc = JSON.parse(
        await Deno.readTextFile(`${box.worktree}/.svc/sessions/${forked}.json`),
      );
      assert.deepEqual(doc.forked_from, { session: NEW, turn: 1 });
      assert.deepEqual(doc.messages.map((m: any) => m.content), [`${NEW} q1`, `${NEW} a1`]);
      // The source keeps its own history: no /fork logged in it, nothing copied back.
      const source = JSON.parse(await Deno.readTextFile(newPath));
      assert.deepEqual(source.messages.map((m: any) => m.role), [
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      assert.equal(source.forked_from, undefined);

      await repl.send("/resume\r");
      await repl.waitFor(
        /Resume a session\n› \S+new-work q1 {2}\(2 turns\) {2}just now[^\n]*\n {2}\S+old-work q1 {2}\(2 turns\) {2}30 min ago/,
      );
      await repl.send("\x1b[B\r");
      await repl.waitFor(new RegExp(`resumed ${OLD} \\(4 messages\\)`));
      await repl.send("/resume ses_20260102\r");
      await repl.waitFor(new RegExp(`resumed ${NEW} \\(4 messages\\)`));
      await repl.send("/resume nope\r");
      await repl.waitFor(/\/resume: no session "nope"/);
      await repl.send("/exit\r");
      assert.equal(await repl.exit(), 0);
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);
