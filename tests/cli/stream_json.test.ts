// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { sandbox, svc } from "../_support/cli.ts";
import { TEST_BUILD } from "../_support/builds.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const SCHEMA = JSON.parse(
  await Deno.readTextFile(new URL("../../docs/schema/stream-json.v1.json", import.meta.url)),
);
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(SCHEMA);

/** Each line of stdout as JSON: every line ends with a newline and nothing else is printed. */
function lines(stdout: string): any[] {
  assert.equal(stdout.endsWith("\n"), true, `stdout does not end with a newline: ${stdout}`);
  return stdout.slice(0, -1).split("\n").map((line) => {
    const value = JSON.parse(line);
    assert.equal(validate(value), true, `${line}\n${JSON.stringify(validate.errors, null, 2)}`);
    return value;
  });
}

/** The kinds of the lines: `type`, with the subtype of system lines. */
const kinds = (all: any[]) => all.map((l) => l.subtype && l.type === "system" ? l.subtype : l.type);

const TOOL_TURN = [
  { tool_calls: [{ name: "read_file", arguments: { file: "notes.txt" }, id: "call_1" }] },
  { text: "The secret word is PAPAYA.", usage: { prompt_tokens: 5, completion_tokens: 6 } },
];

function runArgs(url: string, extra: string[] = []): string[] {
  return ["run", "--base-url", url, "--model", "m", "--output", "stream-json", ...extra];
}

Deno.test("stream-json prints init, the tool call, its result, the answer and the result, one JSON object per line", async () => {
  await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" });
  const fake = await startFakeProvider(TOOL_TURN);
  const out = await svc(runArgs(fake.url, ["-p", "Read notes.txt"]), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const all = lines(out.stdout);
  assert.deepEqual(kinds(all).filter((k) => k !== "svc_event"), [
    "init",
    "assistant",
    "user",
    "assistant",
    "result",
  ]);
  const [init] = all;
  const session = init.session_id;
  assert.match(session, /^ses_\d{8}_\d{6}_read-notes-txt$/);
  assert.deepEqual(all.map((l) => l.session_id), all.map(() => session));
  assert.equal(init.cwd, box.worktree);
  assert.equal(init.model, "m");
  assert.equal(init.tools.includes("file_read"), true);
  assert.deepEqual(init.svc, {
    schema_version: 1,
    version: init.svc.version,
    provider: "generic",
    mode: "build",
    approvals: "default",
  });
  const [call, result, answer, end] = all.filter((l) => l.type !== "system");
  assert.deepEqual(call.message.content, [
    { type: "tool_use", id: "call_1", name: "file_read", input: { file: "notes.txt" } },
  ]);
  assert.equal(call.message.stop_reason, "tool_use");
  const [block] = result.message.content;
  assert.deepEqual([block.type, block.tool_use_id, block.is_error], [
    "tool_result",
    "call_1",
    false,
  ]);
  assert.match(block.content, /PAPAYA/);
  assert.deepEqual(answer.message.content, [{ type: "text", text: "The secret word is PAPAYA." }]);
  assert.deepEqual(answer.message.usage, {
    input_tokens: 5,
    output_tokens: 6,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  assert.equal(end.subtype, "success");
  assert.equal(end.is_error, false);
  assert.equal(end.num_turns, 2);
  assert.equal(end.result, "The secret word is PAPAYA.");
  assert.deepEqual(end.permission_denials, []);
  assert.equal(end.svc.reason, "answered");
  assert.equal(end.svc.rounds, 2);
  assert.equal(end.svc.context.window, 32768);
  assert.equal(end.svc.context.estimated_tokens > 0, true);
  assert.equal(end.svc.session, session);
});

const JQ = await new Deno.Command("jq", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success).catch(() => false);

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

Deno.test(
  "a shell pipeline into jq sees every line of a two-round tool turn (needs jq)",
  { ignore: !JQ },
  async () => {
    await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" });
    const fake = await startFakeProvider(TOOL_TURN);
    const svcWords = [TEST_BUILD.command, ...TEST_BUILD.prefix, ...runArgs(fake.url)];
    const pipeline = `${svcWords.map(quote).join(" ")} -p 'Read notes.txt' | jq -c .type`;
    const out = await new Deno.Command("/bin/sh", {
      args: ["-c", pipeline],
      cwd: box.worktree,
      env: box.env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    await fake.close();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(out.code, 0, text(out.stderr));
    assert.equal(
      text(out.stdout),
      '"system"\n"assistant"\n"user"\n"assistant"\n"result"\n',
    );
  },
);

Deno.test("--include-partial-messages adds the text deltas as stream_event lines before the message", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "partial words arrive", chunkSize: 4 }]);
  const out = await svc(runArgs(fake.url, ["--include-partial-messages", "-p", "hi"]), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const all = lines(out.stdout);
  const deltas = all.filter((l) => l.type === "stream_event");
  assert.equal(deltas.length > 1, true);
  assert.equal(deltas.map((l) => l.event.delta.text).join(""), "partial words arrive");
  assert.deepEqual(deltas[0].event.delta.type, "text_delta");
  assert.equal(kinds(all).lastIndexOf("stream_event") < kinds(all).indexOf("assistant"), true);
  assert.deepEqual(all.map((l) => l.session_id), all.map(() => all[0].session_id));
});

Deno.test("without --include-partial-messages no stream_event line is printed", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "whole answer", chunkSize: 2 }]);
  const out = await svc(runArgs(fake.url, ["-p", "hi"]), { cwd: box.worktree, env: box.env });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(kinds(lines(out.stdout)), ["init", "assistant", "result"]);
});

Deno.test("a failing backend ends the stream with an is_error result line and exit 1", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ status: 401, body: '{"error":"bad key"}' }]);
  const out = await svc(runArgs(fake.url, ["-p", "hi", "--session-id", "failing"]), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 1);
  const all = lines(out.stdout);
  assert.equal(kinds(all)[0], "init");
  const end = all.at(-1);
  assert.deepEqual(
    [end.type, end.subtype, end.is_error, end.session_id, end.svc.reason],
    ["result", "error_during_execution", true, "failing", "stream_error"],
  );
  assert.equal(end.errors.length > 0, true);
  assert.equal(end.svc.errors[0].code, "http_401");
  const events = all.filter((l) => l.subtype === "svc_event").map((l) => l.event.type);
  assert.equal(events.includes("error"), true);
  assert.deepEqual(all.map((l) => l.session_id), all.map(() => "failing"));
});

Deno.test("a run that fails before its turn still prints one result line", async () => {
  await using box = await sandbox();
  const out = await svc(
    [
      "run",
      "--provider",
      "no-such-provider",
      "--model",
      "m",
      "--output",
      "stream-json",
      "-p",
      "hi",
    ],
    { cwd: box.worktree, env: box.env },
  );
  assert.equal(out.code, 1);
  const all = lines(out.stdout);
  assert.deepEqual(kinds(all), ["result"]);
  assert.deepEqual([all[0].is_error, all[0].svc.reason], [true, "setup_error"]);
  assert.match(out.stderr, /no-such-provider/);
});
