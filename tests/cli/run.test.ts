import assert from "node:assert/strict";
import { sandbox, spawnSvc, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("svc run reads a file through a tool and answers, with the session on disk", async () => {
  await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" });
  const fake = await startFakeProvider([
    {
      tool_calls: [{ name: "read_file", arguments: { file: "notes.txt" } }],
      usage: { prompt_tokens: 4, completion_tokens: 2 },
    },
    { text: "The secret word is PAPAYA.", usage: { prompt_tokens: 5, completion_tokens: 6 } },
  ]);
  const out = await svc([
    "run",
    "--base-url",
    fake.url,
    "--model",
    "m",
    "--prompt",
    "Read notes.txt and tell me the secret word",
    "--output",
    "json",
  ], { cwd: box.worktree, env: box.env });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual(Object.keys(result).sort(), [
    "content",
    "context",
    "cost_usd",
    "duration",
    "errors",
    "model",
    "provider",
    "reason",
    "rounds",
    "session",
    "status",
    "thinking",
    "tool_calls",
    "usage",
  ]);
  assert.deepEqual([result.reason, result.rounds], ["answered", 2]);
  assert.equal(result.status, "ok");
  assert.equal(result.content, "The secret word is PAPAYA.");
  assert.equal(result.model, "m");
  assert.equal(result.provider, "generic");
  assert.match(result.session, /^ses_\d{8}_\d{6}_read-notes-txt-and-tell-me-the-secret-wo$/);
  assert.deepEqual(result.usage, { prompt_tokens: 9, completion_tokens: 8 });
  assert.equal(result.cost_usd, null);
  assert.equal(fake.requests[1].body.messages.at(-1).content.includes("PAPAYA"), true);
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), [
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  const models = JSON.parse(await Deno.readTextFile(`${box.home}/.config/svc/models.json`));
  assert.equal(JSON.stringify(models).includes('"m"'), true);
});

Deno.test("svc run text output streams the answer to stdout and exits 0", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "héllo wörld", chunkSize: 2, splitUtf8: true }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "say", "hi"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "héllo wörld\n");
});

Deno.test("svc run exits 1 with status error when the provider fails", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ status: 401, body: '{"error":"bad key"}' }]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "-p", "hi", "--output", "json"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 1);
  const result = JSON.parse(out.stdout);
  assert.equal(result.status, "error");
  assert.equal(result.errors[0].code, "http_401");
});

Deno.test("svc run exits 1 on an empty answer", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "" }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "-p", "hi"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 1);
  assert.match(out.stderr, /status: empty/);
});

Deno.test("a prompt over 16 MiB on standard input is refused before anything runs", async () => {
  await using box = await sandbox();
  const out = await svc(
    ["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "-p", "-"],
    { cwd: box.worktree, env: box.env, stdin: "x".repeat((16 << 20) + 1) },
  );
  assert.deepEqual([out.code, out.stdout, out.stderr], [
    2,
    "",
    "svc run: the prompt on standard input is over 16 MiB\n",
  ]);
  assert.equal(await Deno.stat(`${box.worktree}/.svc`).catch(() => null), null);
});

/** Starts a run against a stalled stream, sends `signal` once the first words arrived. */
async function interruptStalledRun(signal: Deno.Signal) {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ stall: true, text: "partial words" }]);
  const child = spawnSvc(
    ["run", "--base-url", fake.url, "--model", "m", "-p", "hi", "--session-id", "stall"],
    { cwd: box.worktree, env: box.env },
  );
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes("words")) seen += new TextDecoder().decode((await reader.read()).value);
  child.kill(signal);
  reader.releaseLock();
  const status = await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  await fake.close();
  const stored = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/sessions/stall.json`));
  return { code: status.code, messages: stored.messages };
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  Deno.test(`${signal} during a stalled stream cancels the turn, saves it and exits ${code}`, async () => {
    const { code: exit, messages } = await interruptStalledRun(signal);
    assert.equal(exit, code);
    assert.deepEqual(
      messages.map((m: { role: string; content: string; partial?: boolean }) => [
        m.role,
        m.content,
        m.partial ?? false,
      ]),
      [["user", "hi", false], ["assistant", "partial words", true]],
    );
  });
}

Deno.test("svc run --session-id continues a session across runs", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "one" }, { text: "two" }]);
  const args = ["run", "--base-url", fake.url, "--model", "m", "--session-id", "demo", "-p"];
  assert.equal((await svc([...args, "first"], { cwd: box.worktree, env: box.env })).code, 0);
  assert.equal((await svc([...args, "second"], { cwd: box.worktree, env: box.env })).code, 0);
  await fake.close();
  const sent = fake.requests[1].body.messages.map((m: { content: string }) => m.content);
  assert.deepEqual(sent.slice(-3), ["first", "one", "second"]);
});

Deno.test("svc run refuses a hostile session id before touching disk", async () => {
  await using box = await sandbox();
  const out = await svc([
    "run",
    "--base-url",
    "http://127.0.0.1:9",
    "--model",
    "m",
    "-p",
    "x",
    "--session-id",
    "../../evil",
  ], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /--session-id: session name must be/);
});

Deno.test("svc run with a removed config key fails with a message naming key and file", async () => {
  await using box = await sandbox({ ".svc/config.json": '{"api_key": "sk-secret"}' });
  const out = await svc(["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "-p", "x"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /Config key "api_key" in .*\.svc\/config\.json was removed/);
  assert.equal(out.stderr.includes("sk-secret"), false);
});

Deno.test("svc run --no denies an ask-gated call as the flag's decision and runs nothing", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "run_command", arguments: { command: "touch pwned" } }] },
    { text: "done" },
  ]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "-p", "touch", "--no", "--output", "json"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  const { at: _at, call_id: _id, ...record } = stored.permissions[0];
  assert.deepEqual(record, {
    tool: "run_command",
    category: "bash",
    action: "ask",
    reason: "bash category is ask",
    outcome: "rejected",
    by: "flag",
  });
  assert.equal(await Deno.stat(`${box.worktree}/pwned`).catch(() => null), null);
});

Deno.test("svc run without a prompt explains how to give one", async () => {
  await using box = await sandbox();
  const out = await svc(["run"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /a prompt is required/);
});

Deno.test("svc run --prompt - reads the prompt from standard input", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "ok" }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "--prompt", "-"], {
    cwd: box.worktree,
    env: box.env,
    stdin: "from stdin",
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(fake.requests[0].body.messages.at(-1).content, "from stdin");
});

Deno.test("svc --version and -v print the version", async () => {
  await using box = await sandbox();
  const deno = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  for (const flag of ["--version", "-v"]) {
    const out = await svc([flag], { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout], [0, `${deno.version}\n`]);
  }
});

Deno.test("an unknown flag is refused with usage help", async () => {
  await using box = await sandbox();
  const out = await svc(["run", "--frobnicate"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /unknown option '--frobnicate'/);
});

Deno.test("svc run ends with status error and a clear message when the session cannot be written", async () => {
  await using box = await sandbox({ ".svc/sessions": "a file where the folder should be" });
  const fake = await startFakeProvider([{ text: "hi" }]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "-p", "hi", "--output", "json"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 1);
  const result = JSON.parse(out.stdout);
  assert.equal(result.status, "error");
  assert.equal(result.errors[0].code, "session_write");
  assert.match(result.errors[0].message, /Could not write the session ses_.*\.svc\/sessions/);
  assert.match(
    result.errors[0].message,
    /a file stands where a folder should be .*; move it aside$/,
  );
  assert.equal(out.stderr.includes("at "), false, out.stderr);
});

Deno.test("without an absolute HOME svc run refuses to guess where keys and trust live", async () => {
  await using box = await sandbox();
  const denoDir = Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
  for (const home of ["", "relative/home"]) {
    const out = await svc(["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "-p", "hi"], {
      cwd: box.worktree,
      env: { HOME: home, DENO_DIR: denoDir, NO_COLOR: "1" },
    });
    const what = home ? `"${home}", not an absolute path` : "not set";
    assert.deepEqual([out.code, out.stdout, out.stderr], [
      1,
      "",
      `svc run: HOME is ${what}; svc keeps its global config, API keys and trust list in ` +
      "$HOME/.config/svc, so set HOME to your home folder\n",
    ]);
  }
  assert.deepEqual([...Deno.readDirSync(box.worktree)], []);
});

// deno-lint-ignore no-control-regex
const RAW_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const PLANTED = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;pwned\x07planted\x9b2J\n";

Deno.test("svc run --verbose shows the control characters of a planted file, the answer and thinking as \\xHH, never raw", async () => {
  await using box = await sandbox({ "evil.txt": PLANTED });
  const fake = await startFakeProvider((body) => {
    const last = body.messages.at(-1);
    if (last.role === "tool" && last.tool_call_id === "c2") {
      const file = body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === "c1");
      return { text: `the file says ${String(file.content).split("\n")[1]}`, thinking: PLANTED };
    }
    if (last.role === "tool") {
      return { tool_calls: [{ name: "file_read", arguments: { path: PLANTED }, id: "c2" }] };
    }
    return { tool_calls: [{ name: "file_read", arguments: { path: "evil.txt" }, id: "c1" }] };
  });
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--verbose", "-p", "read evil.txt"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  // The answer quotes the file; a failed call's error line quotes the planted path; --verbose
  // streams the thinking to stderr.
  const shown = String.raw`\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]0;pwned\x07planted\x9b2J`;
  assert.equal(out.stdout.includes(shown), true, out.stdout);
  assert.equal(out.stderr.includes(`${shown}\n`), true, out.stderr);
  assert.match(out.stderr, /file_read: .*\\x1b\]52;c;SGVsbG8=\\x07/);
  assert.equal(RAW_CONTROLS.test(out.stdout), false, JSON.stringify(out.stdout));
  assert.equal(RAW_CONTROLS.test(out.stderr), false, JSON.stringify(out.stderr));
  // The session and the model keep the text as it is: only the terminal sees escapes.
  assert.equal(fake.requests[1].body.messages.at(-1).content.includes(PLANTED.trim()), true);
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

Deno.test("a line cut at the tool result cap never splits a surrogate pair: the next request carries whole characters", async () => {
  // file_read's budget is tool_max_result_chars - 400 = 600: the line is cut between 😀's halves.
  await using box = await sandbox({
    "wide.txt": "a".repeat(599) + "😀".repeat(20) + "\nsecond\n",
    ".svc/config.json": JSON.stringify({ tool_max_result_chars: 1000 }),
  }, { trusted: true });
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "file_read", arguments: { path: "wide.txt" } }] },
    { text: "done" },
  ]);
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "-p", "read wide.txt"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const tool = fake.requests[1].body.messages.at(-1);
  assert.equal(tool.role, "tool");
  assert.match(tool.content, /a{599} \[line cut at 600 chars\]/);
  for (const request of fake.requests) {
    assert.equal(LONE_SURROGATE.test(JSON.stringify(request.body)), false);
    for (const m of request.body.messages) {
      assert.equal(LONE_SURROGATE.test(m.content ?? ""), false);
    }
  }
  const session = JSON.parse(out.stdout).session;
  const stored = await Deno.readTextFile(`${box.worktree}/.svc/sessions/${session}.json`);
  assert.equal(/\\ud[89ab]/i.test(stored) || LONE_SURROGATE.test(stored), false);
});

Deno.test("svc run says when no API key is stored for the configured provider", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "hello" }]);
  try {
    await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.home}/.config/svc/config.json`,
      JSON.stringify({ provider: "openai", base_url: fake.url, model: "m" }),
    );
    const out = await svc(["run", "-p", "hi"], { cwd: box.worktree, env: box.env });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, "hello\n");
    assert.equal(
      out.stderr,
      "warning: No API key stored for openai; run /connect openai (or svc connect openai) to add " +
        "one\n",
    );
  } finally {
    await fake.close();
  }
});
