import assert from "node:assert/strict";
import { compileAnswerSchema, parseAnswer, StructuredTurn } from "../../src/engine/structured.ts";

const OBJECT = {
  type: "object",
  properties: { a: { type: "integer" } },
  required: ["a"],
  additionalProperties: false,
};

Deno.test("parseAnswer takes the whole text or the body of a json fence", () => {
  assert.deepEqual(parseAnswer(' {"a": 1}\n'), { value: { a: 1 } });
  assert.deepEqual(parseAnswer('Here:\n```json\n{"a": 2}\n```\nDone.'), { value: { a: 2 } });
  assert.deepEqual(parseAnswer("```\n[1, 2]\n```"), { value: [1, 2] });
  assert.deepEqual(parseAnswer(""), { problem: "the answer is empty" });
  assert.ok("problem" in parseAnswer("```json\n{oops}\n```"));
});

Deno.test("responseFormat follows the provider's support and the schema's shape", async () => {
  const turn = new StructuredTurn({ schema: await compileAnswerSchema(OBJECT) });
  assert.equal(turn.responseFormat("openai", true)?.json_schema.strict, true);
  assert.equal(turn.responseFormat("openrouter", false)?.json_schema.name, "answer");
  assert.equal(turn.responseFormat("generic", true), undefined);
  assert.ok(turn.responseFormat("generic", false));
  for (const provider of ["anthropic", "dashscope", "opencode", "some-plugin"]) {
    assert.equal(turn.responseFormat(provider, false), undefined, provider);
  }
  const array = new StructuredTurn({ schema: await compileAnswerSchema({ type: "array" }) });
  assert.equal(array.responseFormat("openai", false), undefined);
  const nested = await compileAnswerSchema({
    type: "object",
    properties: { inner: { type: "object", properties: { b: {} } } },
    required: ["inner"],
    additionalProperties: false,
  });
  assert.equal(
    new StructuredTurn({ schema: nested }).responseFormat("openai", false)?.json_schema.strict,
    false,
  );
});

Deno.test("judge repairs at most retries times, then lists the errors", async () => {
  const turn = new StructuredTurn({ schema: await compileAnswerSchema(OBJECT), retries: 1 });
  const first = turn.judge('{"a": "x", "b": 1}');
  assert.equal(first.kind, "repair");
  assert.match((first as { message: string }).message, /\/a: must be integer/);
  assert.match((first as { message: string }).message, /additional properties \("b"\)/);
  const last = turn.judge("[]");
  assert.deepEqual(last, {
    kind: "invalid",
    errors: [{
      code: "schema_invalid",
      message: "/: must be object",
      at: (last as { errors: Array<{ at: string }> }).errors[0].at,
    }],
  });
  assert.equal(turn.value, undefined);
  const valid = new StructuredTurn({ schema: await compileAnswerSchema(true) });
  assert.deepEqual(valid.judge("null"), { kind: "valid", value: null });
});
