import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { startServe, writeConfig } from "./_serve.ts";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

Deno.test("POST /chat with json_schema returns structured_output, repaired when needed", async (t) => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    { text: '{"town": "Lyon"}' },
    { text: '{"city": "Lyon"}' },
    { text: "Lyon" },
    { text: "still Lyon" },
  ]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const chat = (body: unknown) =>
    served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    await t.step("a repaired answer is the structured_output", async () => {
      const res = await chat({ prompt: "Where?", json_schema: SCHEMA });
      assert.equal(res.status, 200);
      const result = await res.json();
      assert.deepEqual([result.status, result.structured_output], ["ok", { city: "Lyon" }]);
      assert.match(fake.requests[1].body.messages.at(-1).content, /additional properties/);
    });
    await t.step(
      "json_retries 1: an answer that never validates is 502 schema_invalid",
      async () => {
        const res = await chat({ prompt: "Where?", json_schema: SCHEMA, json_retries: 1 });
        assert.equal(res.status, 502);
        const result = await res.json();
        assert.deepEqual([result.status, result.reason], ["error", "schema_invalid"]);
        assert.equal(fake.requests.length, 4);
      },
    );
    await t.step("a bad schema or retry count is 400 before any request", async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ prompt: "x", json_schema: { type: 3 } }, /json_schema is not a valid JSON Schema/],
        [{ prompt: "x", json_schema: "{}" }, /json_schema must be a JSON object/],
        [{ prompt: "x", json_schema: {}, json_retries: -1 }, /json_retries must be a whole/],
        [{ prompt: "x", json_retries: 1 }, /json_retries needs json_schema/],
      ];
      for (const [body, expected] of cases) {
        const res = await chat(body);
        assert.equal(res.status, 400);
        assert.match((await res.json()).error, expected);
      }
      assert.equal(fake.requests.length, 4);
    });
  } finally {
    await served.stop();
    await fake.close();
  }
});
