import assert from "node:assert/strict";
import { redact } from "../../src/provider/http_util.ts";

const LONG = "sk-proj-4f9A0b7C2d";

Deno.test("a long key is masked wherever it occurs, with the whole token that holds it", () => {
  const cases: Array<[string, string]> = [
    [`Incorrect API key provided: ${LONG}`, "Incorrect API key provided: ***"],
    [`key ${LONG} and ${LONG}.`, "key *** and ***."],
    [`"authorization":"Bearer ${LONG}"`, `"authorization":"Bearer ***"`],
    [`${LONG}9 is another key`, "*** is another key"],
    [`x${LONG}`, "***"],
    [`url?key=${LONG}&x=1`, "url?key=***&x=1"],
  ];
  assert.deepEqual(cases.map(([text]) => [text, redact(text, LONG)]), cases);
});

Deno.test("a very short key is masked only where it stands as a credential, so words survive", () => {
  const cases: Array<[string, string, string]> = [
    ["ollama returned HTTP 401: bad key", "ollama", "ollama returned HTTP 401: bad key"],
    ["you sent Authorization: Bearer ollama", "ollama", "you sent Authorization: Bearer ***"],
    [
      '{"api_key": "ollama", "model": "ollama/llama3"}',
      "ollama",
      '{"api_key": "***", "model": "ollama/llama3"}',
    ],
    ["the key k keeps kk working", "k", "the key k keeps kk working"],
    ["authorization: Bearer k", "k", "authorization: Bearer ***"],
    ["x-api-key=EMPTY; EMPTY body", "EMPTY", "x-api-key=***; EMPTY body"],
    ["nothing to hide", "", "nothing to hide"],
  ];
  assert.deepEqual(
    cases.map(([text, key]) => [text, key, redact(text, key)]),
    cases,
  );
});

Deno.test("a key echoed URL-encoded or with JSON-escaped slashes is masked too", () => {
  const key = "AbC+dEf/GhI=jklmno";
  assert.deepEqual(
    [
      redact("q=AbC%2BdEf%2FGhI%3Djklmno", key),
      redact('{"k":"AbC+dEf\\/GhI=jklmno"}', key),
      redact("raw AbC+dEf/GhI=jklmno end", key),
    ],
    ["q=***", '{"k":"***"}', "raw *** end"],
  );
});
