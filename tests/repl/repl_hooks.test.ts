// deno-lint-ignore-file no-explicit-any
/**
 * The REPL's hook events in a real pseudo-terminal (util-linux `script`), from the user's own
 * config, as bash scripts that log their stdin: SessionStart (startup, clear), Notification for
 * the approval prompt and the `ask` tool's question, PreCompact on /compact, SessionEnd (clear on
 * /session new, prompt_input_exit on /exit).
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { needs } from "../_support/tools.ts";
import { PtyRepl } from "./_pty.ts";

Deno.test(
  "the REPL fires SessionStart, Notification for its prompts, PreCompact on /compact and SessionEnd (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox();
    const log = `${box.home}/hooks.log`;
    const fake = await startFakeProvider((body: any) => {
      if (body.stream === false) return { text: "SUMMARY" };
      const last = body.messages.at(-1);
      if (last.role === "tool") return { text: `tool said: ${String(last.content)}` };
      if (last.content === "run it") {
        return { tool_calls: [{ name: "run_command", arguments: { command: "echo one" } }] };
      }
      if (last.content === "ask me") {
        return { tool_calls: [{ name: "ask", arguments: { question: "Which color?" } }] };
      }
      return { text: `echo: ${last.content}` };
    });
    const logging = [{
      hooks: [{ type: "command", command: `cat >> '${log}'; echo >> '${log}'` }],
    }];
    await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.home}/.config/svc/config.json`,
      JSON.stringify({
        base_url: fake.url,
        model: "fake-model",
        compact_keep: 1,
        hooks: {
          SessionStart: logging,
          SessionEnd: logging,
          Notification: logging,
          PreCompact: logging,
        },
      }),
    );
    const repl = new PtyRepl({ cwd: box.worktree, env: box.env });
    try {
      await repl.waitFor(/generic\/fake-model · ctx/);
      await repl.send("run it\r");
      await repl.waitFor(/\? Allow run_command \{"command":"echo one"\}/);
      await repl.send("y");
      await repl.waitFor(/tool said: exit code 0/);
      await repl.send("ask me\r");
      await repl.waitFor(/\? Which color\?/);
      await repl.send("blue\r");
      await repl.waitFor(/tool said: blue/);
      await repl.send("/compact\r");
      await repl.waitFor(/compacted: \d+ messages summarized, \d+ kept/);
      await repl.send("/session new\r");
      await repl.waitFor(/new session \(named by its first message\)/);
      await repl.send("/exit\r");
      assert.equal(await repl.exit(), 0);
    } finally {
      await repl.dispose();
      await fake.close();
    }
    const events = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    const sessions = events.filter((e) => e.hook_event_name.startsWith("Session"));
    const first = sessions[0].session_id;
    assert.deepEqual(
      sessions.map((e) => [e.hook_event_name, e.source ?? e.reason]),
      [
        ["SessionStart", "startup"],
        ["SessionEnd", "clear"],
        ["SessionStart", "clear"],
        ["SessionEnd", "prompt_input_exit"],
      ],
    );
    assert.notEqual(sessions[2].session_id, sessions[1].session_id);
    assert.equal(typeof first, "string");
    const notes = events.filter((e) => e.hook_event_name === "Notification")
      .map((e) => [e.notification_type, e.message]);
    assert.deepEqual(notes, [
      ["permission_prompt", "svc needs your permission to use Bash"],
      ["elicitation_dialog", "svc has a question for you: Which color?"],
    ]);
    const compact = events.filter((e) => e.hook_event_name === "PreCompact");
    assert.deepEqual(compact.map((e) => [e.trigger, e.custom_instructions]), [["manual", ""]]);
    // The compaction and the prompts happened in the session that /session new then left.
    assert.equal(compact[0].session_id, sessions[1].session_id);
  },
);
