// deno-lint-ignore-file no-explicit-any
/**
 * The REPL's daily-driver habits in one real pseudo-terminal (util-linux `script`), against the
 * scripted provider: /tool before a backend is configured, `!command`, `@path` mentions (and their
 * Tab completion), a custom
 * Markdown command, a file_edit's hunks and the turn's change summary with /diff, the status
 * line after a slash command, Ctrl-L, Ctrl-X Ctrl-E and Ctrl-C twice to exit.
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { needs } from "../_support/tools.ts";
import { PtyRepl } from "./_pty.ts";

Deno.test(
  "svc in a terminal: /tool without a model, !command and @path (Tab-completed) attached to the next prompt, a custom command, file_edit hunks, the change summary and /diff, Ctrl-L, Ctrl-X Ctrl-E, Ctrl-C twice (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox({
      "hello.txt": "hello world\nsecond line\n",
      ".svc/config.json": JSON.stringify({ tool_permission: { edit: "allow" } }),
      ".svc/commands/greet.md":
        "---\ndescription: greet someone by name\nargument-hint: <name>\n---\nSay hello to $1 ($ARGUMENTS)\n",
    }, { trusted: true });
    const fake = await startFakeProvider((body: any) => {
      const last = body.messages.at(-1);
      if (last.role === "tool") return { text: "edited", usage: USAGE };
      if (String(last.content) === "edit it") {
        return {
          tool_calls: [{
            name: "file_edit",
            arguments: { path: "hello.txt", old: "world", new: "there" },
          }],
        };
      }
      return { text: `echo: ${String(last.content).split("\n")[0]}`, usage: USAGE };
    });
    const repl = new PtyRepl({
      cwd: box.worktree,
      env: { ...box.env, VISUAL: "sed -i s/draft/from-the-editor/" },
    });
    try {
      await repl.waitFor(/no model backend \(\/connect\)/);
      await repl.send('/tool file_read {"path": "hello.txt"}\r');
      await repl.waitFor(/hello\.txt: 2 lines, 24 chars\n1 +hello world\n2 +second line/);

      await repl.send(`/config set base_url ${fake.url}\r`);
      await repl.waitFor(/set base_url in /);
      await repl.send("/config set model fake-model\r");
      await repl.waitFor(/generic\/fake-model · ctx/);

      await repl.send("!echo shell-out; exit 3\r");
      await repl.waitFor(
        /shell-out\nexit code 3 · your own command \(no permission asked\) · its output goes with your/,
      );
      await repl.send("look at @hel\t");
      await repl.waitFor(/› look at @hello\.txt \n/);
      await repl.send("\x15"); // Ctrl-U
      await repl.send("look at @hello.txt:2 please\r");
      await repl.waitFor(/attached @hello\.txt:2 \(/);
      await repl.waitFor(/echo: look at @hello\.txt:2 please/);
      const sent = fake.requests.at(-1)!.body.messages;
      assert.equal(sent.some((m: any) => m.role === "command"), false);
      assert.equal(
        sent.at(-1).content,
        "look at @hello.txt:2 please\n\n" +
          '<attachment file="hello.txt" lines="2-2">\n' +
          "hello.txt: 2 lines, 24 chars; showing lines 2-2\n2\tsecond line\n</attachment>\n\n" +
          '<shell_command command="echo shell-out; exit 3" exit_code="3">\nshell-out\n' +
          "</shell_command>",
      );
      // The reported size stays after a slash command (it used to fall back to an estimate).
      await repl.waitFor(/fake-model · ctx 1\.2k of 32\.8k tokens/);
      await repl.send("/help\r");
      await repl.waitFor(/\/greet\s+greet someone by name/);
      assert.match((await repl.lines()).join("\n"), /fake-model · ctx 1\.2k of 32\.8k tokens/);

      await repl.send("/greet Ada Lovelace\r");
      await repl.waitFor(/echo: Say hello to Ada \(Ada Lovelace\)/);

      await repl.send("edit it\r");
      await repl.waitFor(
        /✓ file_edit [\s\S]*?\n {2}@@ -1,2 \+1,2 @@\n {2}-hello world\n {2}\+hello there\n {3}second line\nedited\n1 file changed: hello\.txt \+1 -1 · \/diff shows it/,
      );
      await repl.send("/diff\r");
      await repl.waitFor(
        /--- hello\.txt\n\+\+\+ hello\.txt\n@@ -1,2 \+1,2 @@\n-hello world\n\+hello there\n second line/,
      );

      await repl.send("draft");
      await repl.waitFor(/› draft/);
      await repl.send("\x0c"); // Ctrl-L: the window scrolls into the scrollback
      for (let i = 0; (await repl.term.viewport())[0] !== "› draft"; i++) {
        if (i > 200) assert.fail(`Ctrl-L left:\n${(await repl.term.viewport()).join("\n")}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.match((await repl.lines()).join("\n"), /echo: Say hello to Ada/);
      await repl.send("\x18\x05"); // Ctrl-X Ctrl-E: $VISUAL edits the input
      await repl.waitFor(/› from-the-editor/);
      await repl.send("\r");
      await repl.waitFor(/echo: from-the-editor/);
      // A command typed during a turn is queued: its output means the turn is over.
      await repl.send("/version\r");
      await repl.waitFor(/› \/version\nsvc \d+\.\d+\.\d+/);

      // Ctrl-C on an idle, empty line warns; a second one exits (Ctrl-D is repl_e2e's).
      await repl.send("\x03");
      await repl.waitFor(/Press Ctrl-C again to exit/);
      await repl.send("\x03");
      assert.equal(await repl.exit(), 0);
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);

const USAGE = { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 };
