import assert from "node:assert/strict";
import { type StructuredFlags, structuredOf } from "../../src/cli/structured_flags.ts";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const SCHEMA = {
  type: "object",
  properties: { word: { type: "string" }, count: { type: "integer", minimum: 1 } },
  required: ["word", "count"],
  additionalProperties: false,
};

const run = (url: string, extra: string[]) => [
  "run",
  "--base-url",
  url,
  "--model",
  "m",
  "--prompt",
  "Name a word and count its letters",
  ...extra,
];

Deno.test("svc run --json-schema repairs invalid JSON, then a value that fails the schema", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    { text: "Sure! The word is kiwi." },
    { text: '```json\n{"word": "kiwi", "count": "four"}\n```' },
    { text: '```json\n{"word": "kiwi", "count": 4}\n```' },
  ]);
  const out = await svc(run(fake.url, ["--json-schema", JSON.stringify(SCHEMA)]), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  // Text mode: stdout is the validated JSON alone, compact, on one line.
  assert.equal(out.stdout, '{"word":"kiwi","count":4}\n');
  assert.equal(fake.requests.length, 3);
  const system = fake.requests[0].body.messages.filter((m: { role: string }) =>
    m.role === "system"
  );
  assert.match(system.at(-1).content, /JSON Schema[\s\S]*"additionalProperties":false/);
  const firstRepair = fake.requests[1].body.messages.at(-1);
  assert.equal(firstRepair.role, "user");
  assert.match(firstRepair.content, /not valid JSON/);
  const secondRepair = fake.requests[2].body.messages.at(-1);
  assert.match(secondRepair.content, /\/count: must be integer/);
  // A generic backend offered tools gets the schema in the prompt only.
  assert.equal(fake.requests[0].body.response_format, undefined);
});

Deno.test("svc run --output json reports structured_output, rounds and the repairs in the session", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    { text: '{"word": "fig"}' },
    { text: '{"word": "fig", "count": 3}' },
  ]);
  const out = await svc(
    run(fake.url, ["--json-schema", JSON.stringify(SCHEMA), "--output", "json"]),
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.equal(result.status, "ok");
  assert.deepEqual(result.structured_output, { word: "fig", count: 3 });
  assert.equal(result.rounds, 2);
  assert.match(
    fake.requests[1].body.messages.at(-1).content,
    /must have required property 'count'/,
  );
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
});

Deno.test("an answer that never validates ends with status error and reason schema_invalid", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider(() => ({ text: '{"word": 7, "count": 0}' }));
  const out = await svc(
    run(fake.url, [
      "--json-schema",
      JSON.stringify(SCHEMA),
      "--json-retries",
      "1",
      "--output",
      "json",
    ]),
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 1);
  // One answer and one repair: --json-retries 1.
  assert.equal(fake.requests.length, 2);
  const result = JSON.parse(out.stdout);
  assert.equal(result.status, "error");
  assert.equal(result.reason, "schema_invalid");
  assert.equal(result.structured_output, undefined);
  assert.deepEqual(result.errors.map((e: { code: string; message: string }) => e.message), [
    "/word: must be string",
    "/count: must be >= 1",
  ]);
  assert.ok(result.errors.every((e: { code: string }) => e.code === "schema_invalid"));
});

Deno.test("schema_invalid in text mode leaves stdout empty and names the errors on stderr", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider(() => ({ text: "no JSON here" }));
  const out = await svc(
    run(fake.url, ["--json-schema", JSON.stringify(SCHEMA), "--json-retries", "0"]),
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 1);
  assert.equal(out.stdout, "");
  assert.equal(fake.requests.length, 1);
  assert.match(
    out.stderr,
    /error: The answer does not validate against the JSON Schema: not valid JSON/,
  );
  assert.match(out.stderr, /status: error/);
});

Deno.test("response_format json_schema is sent to a provider that supports it, tools or not", async () => {
  await using box = await sandbox();
  // `count` optional: OpenAI's strict mode would refuse it, so strict is false.
  const open = { ...SCHEMA, required: ["word"] };
  await Deno.writeTextFile(`${box.worktree}/answer.schema.json`, JSON.stringify(open));
  const fake = await startFakeProvider([{ text: '{"word":"plum","count":4}' }]);
  const out = await svc(
    [...run(fake.url, ["--output-schema", "answer.schema.json"]), "--provider", "openai"],
    { cwd: box.worktree, env: { ...box.env, OPENAI_API_KEY: "sk-test" } },
  );
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, '{"word":"plum","count":4}\n');
  const body = fake.requests[0].body;
  assert.ok(body.tools.length > 0);
  assert.deepEqual(body.response_format, {
    type: "json_schema",
    json_schema: { name: "answer", schema: open, strict: false },
  });
});

Deno.test("a generic backend gets response_format only on rounds that offer no tools", async () => {
  await using box = await sandbox();
  const closed = { ...SCHEMA, title: "Word count" };
  await Deno.writeTextFile(`${box.worktree}/s.json`, JSON.stringify(closed));
  const fake = await startFakeProvider(() => ({ text: '{"word":"fig","count":3}' }));
  const withTools = await svc(run(fake.url, ["--json-schema", "@s.json"]), {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(withTools.code, 0, withTools.stderr);
  const offered = fake.requests[0].body.tools.map((t: { function: { name: string } }) =>
    t.function.name
  );
  assert.equal(fake.requests[0].body.response_format, undefined);
  // Every tool denied: the round offers none, and the backend is asked for the schema.
  await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({ "tools.deny": offered }),
  );
  const noTools = await svc(run(fake.url, ["--json-schema", "@s.json"]), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(noTools.code, 0, noTools.stderr);
  const body = fake.requests[1].body;
  assert.equal(body.tools, undefined);
  assert.deepEqual(body.response_format, {
    type: "json_schema",
    json_schema: { name: "Word_count", schema: closed, strict: true },
  });
});

Deno.test("a schema that is not JSON or not readable is a usage error before any request", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "never asked" }]);
  const cases: Array<[string[], RegExp]> = [
    [["--json-schema", "{type: object}"], /--json-schema is not valid JSON/],
    [["--output-schema", "missing.json"], /--output-schema: cannot read missing.json/],
  ];
  for (const [flags, expected] of cases) {
    const out = await svc(run(fake.url, flags), { cwd: box.worktree, env: box.env });
    assert.equal(out.code, 2, `${flags.join(" ")}: ${out.stderr}`);
    assert.match(out.stderr, expected);
    assert.equal(out.stdout, "");
  }
  await fake.close();
  assert.equal(fake.requests.length, 0);
});

Deno.test("each bad --json-schema, --output-schema or --json-retries names its problem", async () => {
  const cases: Array<[StructuredFlags, RegExp]> = [
    [{ jsonSchema: "{type: object}" }, /--json-schema is not valid JSON/],
    [{ jsonSchema: '{"type": "nope"}' }, /--json-schema is not a valid JSON Schema: data\/type/],
    [{ jsonSchema: "[1]" }, /--json-schema must be a JSON object/],
    [{ jsonSchema: "@missing.json" }, /--json-schema: cannot read missing.json/],
    [{ outputSchema: "missing.json" }, /--output-schema: cannot read missing.json/],
    [
      { jsonSchema: '{"$schema": "http://json-schema.org/draft-07/schema#"}' },
      /svc validates Draft 2020-12/,
    ],
    [{ jsonSchema: '{"$ref": "#/$defs/nope"}' }, /--json-schema does not compile/],
    [{ jsonRetries: "1" }, /--json-retries needs --json-schema/],
    [{ jsonSchema: "{}", jsonRetries: "x" }, /--json-retries takes a whole number/],
    [{ jsonSchema: "{}", team: "t" }, /cannot be combined with --team/],
  ];
  for (const [flags, expected] of cases) {
    const got = await structuredOf(flags);
    assert.ok("problem" in got, JSON.stringify(flags));
    assert.match(got.problem, expected);
  }
});
