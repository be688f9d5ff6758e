// deno-lint-ignore-file no-explicit-any no-control-regex
/**
 * The REPL end to end in a real pseudo-terminal (util-linux `script`), against the scripted
 * provider, with a temp HOME: keys go in as a terminal sends them, the screen is read back from a
 * headless terminal emulator.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { needs } from "../_support/tools.ts";
import { PtyRepl } from "./_pty.ts";
import { forbiddenIn } from "./_xterm.ts";

const SGR = /\x1b\[[0-9;]*m/;

Deno.test(
  "svc in a terminal: a tool call, permission prompts answered once, always and deny, Ctrl-C mid stream with a queued prompt, /tool, /compact, /jobs, /session load and /exit (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox({ "hello.txt": "hello world\n" });
    const fake = await startFakeProvider((body: any) => {
      if (body.stream === false) return { text: "SUMMARY of the talk" };
      const last = body.messages.at(-1);
      if (last.role === "tool") {
        return { text: `tool said: ${String(last.content).split("\n")[0]}` };
      }
      const prompt = String(last.content);
      const call = (command: string) => ({ name: "run_command", arguments: { command } });
      if (prompt === "read hello") {
        return { tool_calls: [{ name: "file_read", arguments: { path: "hello.txt" } }] };
      }
      if (prompt === "run once") return { tool_calls: [call("echo one")] };
      if (prompt === "run always") {
        return {
          tool_calls: [{ ...call("echo two"), id: "a1" }, { ...call("echo two"), id: "a2" }],
        };
      }
      if (prompt === "run deny") return { tool_calls: [call("echo three")] };
      if (prompt === "long") return { text: "word ".repeat(3000), chunkSize: 10, delayMs: 20 };
      return { text: `echo: ${prompt}` };
    });
    await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.worktree}/.svc/config.json`,
      JSON.stringify({ base_url: fake.url, model: "fake-model" }),
    );
    const repl = new PtyRepl({ cwd: box.worktree, env: box.env });
    try {
      await repl.waitFor(/generic\/fake-model · ctx/);
      await repl.send("read hello\r");
      await repl.waitFor(/✓ file_read \{"path":"hello.txt"\}\ntool said: hello.txt: 1 line/);

      await repl.send("run once\r");
      await repl.waitFor(/\? Allow run_command \{"command":"echo one"\}/);
      await repl.send("y");
      await repl.waitFor(
        /allowed once: run_command.*\n✓ run_command \{"command":"echo one"\}\ntool said: exit code 0/,
      );

      await repl.send("run always\r");
      await repl.waitFor(/\? Allow run_command \{"command":"echo two"\}/);
      await repl.send("a");
      await repl.waitFor(
        /allowed for this session: run_command.*\n(✓ run_command \{"command":"echo two"\}\n){2}tool said: exit code 0/,
      );

      await repl.send("run deny\r");
      await repl.waitFor(/\? Allow run_command \{"command":"echo three"\}/);
      await repl.send("n");
      await repl.waitFor(
        /denied: run_command.*\n✗ run_command \{"command":"echo three"\} denied\ntool said: \[refused by the user\]/,
      );

      await repl.send("long\r");
      await repl.waitFor(/word word word word word word word word word word word word/);
      // Typed during the turn: queued and shown as queued, run after it.
      await repl.send("queued one\r");
      await repl.waitFor(/queued: queued one/);
      await repl.send("\x03");
      await repl.waitFor(
        /cancelled: the partial answer is kept in the session\n› queued one\necho: queued one\n›/,
      );

      await repl.send('/tool file_read {"path": "hello.txt"}\r');
      await repl.waitFor(
        /› \/tool file_read .*\n✓ file_read \{"path":"hello.txt"\}\nhello.txt: 1 line, 12 chars\n1\s+hello world/,
      );
      await repl.send("/compact\r");
      await repl.waitFor(/compacted: \d+ messages summarized, \d+ kept/);
      await repl.send("/jobs\r");
      await repl.waitFor(/› \/jobs\ndaemon: not running\nworktree: .* \((not )?trusted\)/);

      const sessions = `${box.worktree}/.svc/sessions`;
      const [name] = [...Deno.readDirSync(sessions)]
        .filter((e) => e.name.endsWith(".json") && !e.name.startsWith("."))
        .map((e) => e.name.replace(/\.json$/, ""));
      assert.match(name, /^ses_\d{8}_\d{6}_read-hello$/);
      await repl.send("/session new\r");
      await repl.waitFor(/new session/);
      await repl.send(`/session load ${name}\r`);
      await repl.waitFor(new RegExp(`loaded ${name} \\(\\d+ messages\\)`));
      await repl.send("/exit\r");
      assert.equal(await repl.exit(), 0);

      assert.deepEqual(forbiddenIn(repl.term.raw), []);
      assert.equal(SGR.test(repl.term.raw), false, "NO_COLOR: no color sequences");
      const stored = JSON.parse(await Deno.readTextFile(`${sessions}/${name}.json`));
      const users = stored.messages.filter((m: any) => m.role === "user").map((m: any) =>
        m.content
      );
      assert.deepEqual(users, [
        "read hello",
        "run once",
        "run always",
        "run deny",
        "long",
        "queued one",
      ]);
      const commands = stored.messages.filter((m: any) => m.role === "command").map((m: any) =>
        m.content
      );
      // Each command is logged in the session it was typed in.
      assert.deepEqual(commands, [
        '/tool file_read {"path": "hello.txt"}',
        "/compact",
        "/jobs",
        "/session new",
      ]);
      const partial = stored.messages.find((m: any) => m.role === "assistant" && m.partial);
      assert.match(partial.content, /^(word )+/);
      const asks = stored.permissions.filter((p: any) => p.tool === "run_command")
        .map((p: any) => [p.outcome, p.by, p.scope ?? null, p.remembered ?? false]);
      assert.deepEqual(asks, [
        ["approved", "user", "once", false],
        ["approved", "user", "always", false],
        ["approved", "user", "always", true],
        ["rejected", "user", null, false],
      ]);
      // `command` messages never reach the provider.
      for (const request of fake.requests) {
        for (const m of request.body?.messages ?? []) assert.notEqual(m.role, "command");
      }
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);

Deno.test(
  "/connect to a local provider with a key stores it, writes the config and the next prompt sends it (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox();
    const fake = await startFakeProvider([{ text: "connected answer" }], { models: ["m1"] });
    await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(`${box.worktree}/.svc/config.json`, JSON.stringify({ model: "m1" }));
    const { NO_COLOR: _, ...env } = box.env;
    const repl = new PtyRepl({ cwd: box.worktree, env });
    try {
      await repl.waitFor(/No model backend is configured/);
      await repl.send(`/connect ${fake.url} local\r`);
      await repl.waitFor(/API key for local/);
      await repl.send("sk-repl-1\r");
      await repl.waitFor(
        /Connected local at http:\/\/127\.0\.0\.1:\d+ \(1 models\); provider and base_url written/,
      );
      await repl.waitFor(/local\/m1 · ctx/);
      await repl.send("hello\r");
      await repl.waitFor(/connected answer/);
      await repl.send("\x04");
      assert.equal(await repl.exit(), 0);
      assert.equal(repl.term.raw.includes("sk-repl-1"), false, "the key is never echoed");
      assert.equal(SGR.test(repl.term.raw), true, "colors without NO_COLOR");
      assert.deepEqual(forbiddenIn(repl.term.raw), []);
      assert.deepEqual(
        JSON.parse(await Deno.readTextFile(`${box.home}/.config/svc/providers.json`)),
        {
          local: { api_key: "sk-repl-1", base_url: fake.url, custom: true },
        },
      );
      assert.deepEqual(JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/config.json`)), {
        model: "m1",
        provider: "local",
        base_url: fake.url,
      });
      assert.equal(fake.requests.at(-1)!.headers.authorization, "Bearer sk-repl-1");
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);

Deno.test(
  "svc in a terminal shows the control characters of a planted file, model text, thinking and tool errors as \\xHH, never raw (needs script)",
  needs("script"),
  async () => {
    const planted = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;pwned\x07planted\x9b2J";
    await using box = await sandbox({ "evil.txt": `${planted}\n` });
    const fake = await startFakeProvider((body: any) => {
      const last = body.messages.at(-1);
      if (last.role === "tool") {
        return { text: `tool said: ${String(last.content).split("\n").at(-1)}`, thinking: planted };
      }
      if (last.content === "read evil") {
        return { tool_calls: [{ name: "file_read", arguments: { path: "evil.txt" } }] };
      }
      return { tool_calls: [{ name: "file_read", arguments: { path: planted } }] };
    });
    await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.worktree}/.svc/config.json`,
      JSON.stringify({ base_url: fake.url, model: "fake-model", show_thinking: true }),
    );
    // With colors: svc's own styling still reaches the terminal.
    const { NO_COLOR: _, ...env } = box.env;
    const repl = new PtyRepl({ cwd: box.worktree, env, columns: 250 });
    const shown = String.raw`\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;pwned\x07planted\x9b2J`;
    const quoted = shown.replace(/[\\[\]]/g, "\\$&");
    try {
      await repl.waitFor(/generic\/fake-model · ctx/);
      await repl.send("read evil\r");
      // The thinking (dimmed) and the answer quoting the file.
      await repl.waitFor(new RegExp(`${quoted}\\n(.*\\n)*tool said: 1\\s+${quoted}`));
      await repl.send('/tool file_read {"path": "evil.txt"}\r');
      await repl.waitFor(new RegExp(`evil.txt: 1 line, \\d+ chars\\n1\\s+${quoted}`));
      await repl.send("read missing\r");
      await repl.waitFor(new RegExp(`✗ file_read .*: Path not found: ${quoted}`));
      await repl.send("/session preview\r");
      await repl.waitFor(new RegExp(`tool: Path not found: ${quoted}\\nassistant: tool said`));
      await repl.send("/exit\r");
      assert.equal(await repl.exit(), 0);
      const raw = repl.term.raw;
      for (const seq of ["\x1b]52", "\x1b]0;", "\x07", "\x9b"]) {
        assert.equal(raw.includes(seq), false, `${JSON.stringify(seq)} reached the terminal`);
      }
      assert.deepEqual(forbiddenIn(raw), []);
      assert.equal(SGR.test(raw), true, "svc's own colors still work");
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);

Deno.test("svc with no arguments and no terminal says the REPL needs one and how to run a prompt instead", async () => {
  await using box = await sandbox();
  const out = await svc([], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 2);
  assert.equal(out.stdout, "");
  assert.equal(
    out.stderr,
    "svc: the interactive REPL needs a terminal on standard input and output; for one prompt " +
      'without a terminal use svc run --prompt "..." (svc --help lists every command)\n',
  );
});
