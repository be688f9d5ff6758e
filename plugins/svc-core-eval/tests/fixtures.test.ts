import assert from "node:assert/strict";
import { parseFixture } from "../../../src/eval/fixture.ts";
import { runTrial } from "../../../src/eval/trial.ts";
import { register_fixtures } from "../mod.ts";
import { LOG_LINES, logRequestId, serviceLog, todoFile, todoRef } from "../src/content.ts";
import {
  type Agent,
  guesserAgent,
  perfectAgent,
  wrongAgent,
} from "../../../tests/_support/eval_agents.ts";
import { evalHarness, LIMITS } from "../../../tests/eval/_harness.ts";

const IDS = [
  "find-then-read",
  "grep-symbol",
  "list-directory",
  "page-large-file",
  "read-file-lines",
];

Deno.test("svc-core-eval registers the five bundled fixtures, each valid", () => {
  const added: unknown[] = [];
  register_fixtures({ add: (fixture) => added.push(fixture) });
  const parsed = added.map((raw) => parseFixture(raw, "svc-core-eval"));
  assert.deepEqual(parsed.map((f) => f.id), IDS);
  for (const fixture of parsed) {
    assert.ok(fixture.expected?.length, `${fixture.id} has an expected trace`);
    assert.ok(fixture.verify.answer, `${fixture.id} grades the answer`);
    assert.ok(fixture.verify.args, `${fixture.id} grades the arguments`);
  }
});

Deno.test("the generated files are deterministic, and every line's reference is its own", () => {
  assert.equal(todoFile(), todoFile());
  assert.equal(serviceLog(), serviceLog());
  const refs = Array.from({ length: 40 }, (_, i) => todoRef(i + 1));
  assert.equal(new Set(refs).size, 40);
  const log = serviceLog().split("\n").slice(0, -1);
  assert.equal(log.length, LOG_LINES);
  const ids = log.map((line) => /req-[0-9a-f]{8}/.exec(line)![0]);
  assert.equal(new Set(ids).size, LOG_LINES);
  assert.equal(ids[2749], logRequestId(2750));
  // Bigger than one file_read page at the default tool_max_result_chars (100,000).
  assert.ok(serviceLog().length > 250_000);
});

/** What each fixture's deliberately wrong agent does, and the checks that catch it. */
const MISTAKES: Record<string, { wrong: string; caught: RegExp[] }> = {
  "read-file-lines": {
    wrong: "quotes line 26 (off by one)",
    caught: [/^the answer does not contain "/, /^the answer contains ".*", which it must not$/],
  },
  "find-then-read": {
    wrong: "reads docs/settings.example.toml instead of finding the real file",
    caught: [
      /^1 tool call, at least 2 needed$/,
      /^no file_read call had arguments matching path = the file config\/services\/billing\/settings.toml$/,
      /^the answer does not contain "4500"$/,
    ],
  },
  "list-directory": {
    wrong: "counts the files of the subfolder too",
    caught: [/^the answer does not match /],
  },
  "grep-symbol": {
    wrong: "reads every file instead of searching (and then answers right)",
    caught: [
      /^grep was never called$/,
      /^5 tool calls, at most 3 allowed$/,
      /^no grep call had arguments matching pattern ~ \/computeChecksum\/$/,
    ],
  },
  "page-large-file": {
    wrong: "reads only the first page and answers from it",
    caught: [
      /^no file_read call had arguments matching path = the file logs\/service.log, offset in \[2, 2750\]$/,
      /^the answer does not contain "req-/,
    ],
  },
};

async function trial(agent: Agent, id: string) {
  await using h = await evalHarness(agent);
  return (await runTrial(h.setup, {
    target: h.target(),
    fixture: h.bundled.get(id)!,
    trial: 1,
    limits: LIMITS,
  })).record;
}

for (const id of IDS) {
  const { wrong, caught } = MISTAKES[id];
  Deno.test(`${id} fails an agent that ${wrong}, and one that guesses without tools; a perfect agent passes`, async () => {
    const mistaken = await trial(wrongAgent, id);
    assert.equal(mistaken.outcome, "fail");
    assert.equal(mistaken.failures.length, caught.length, mistaken.failures.join("\n"));
    caught.forEach((pattern, i) => assert.match(mistaken.failures[i], pattern));
    const guessed = await trial(guesserAgent, id);
    assert.equal(guessed.outcome, "fail");
    assert.ok(guessed.failures.some((f) => / was never called$/.test(f)), guessed.failures.join());
    const perfect = await trial(perfectAgent, id);
    assert.deepEqual([perfect.outcome, perfect.failures], ["pass", []]);
    assert.equal(perfect.f1, 1);
  });
}
