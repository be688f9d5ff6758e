import assert from "node:assert/strict";
import {
  commaList,
  keyValuePairs,
  seconds,
  toolPermission,
  wholeNumber,
} from "../../src/cli/flags.ts";
import { UsageError } from "../../src/cli/usage.ts";

/** The UsageError message `fn` throws. */
function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UsageError, `not a UsageError: ${err}`);
    return err.message;
  }
  throw new Error("no error thrown");
}

Deno.test("--tool-permission takes category=action pairs or a JSON object, and names the bad category", () => {
  assert.deepEqual(toolPermission(" edit=deny, bash = ask ,"), { edit: "deny", bash: "ask" });
  assert.deepEqual(
    toolPermission('{"web": "allow", "bash_allow": ["git status", "ls"]}'),
    { web: "allow", bash_allow: ["git status", "ls"] },
  );
  assert.deepEqual(
    [
      usage(() => toolPermission("frob=allow")),
      usage(() => toolPermission('{"frob": "allow"}')),
    ],
    [
      '--tool-permission: unknown category "frob" (categories: read, list, edit, bash, web, mcp, ' +
      "delegate, ask; bash_allow as a JSON list)",
      '--tool-permission: unknown category "frob" (categories: read, list, edit, bash, web, mcp, ' +
      "delegate, ask; bash_allow as a JSON list)",
    ],
  );
});

Deno.test("--tool-permission refuses a bad action, a part without one =, bad JSON and a bash_allow of non-strings", () => {
  assert.deepEqual(
    [
      usage(() => toolPermission("edit=maybe")),
      usage(() => toolPermission("edit")),
      usage(() => toolPermission("edit=deny=allow")),
      usage(() => toolPermission("{edit")),
      usage(() => toolPermission('{"bash_allow": [1]}')),
    ].map((message) => message.replace(/\(.*\)$/, "(...)")),
    [
      '--tool-permission: edit must be one of allow, ask, deny, not "maybe"',
      '--tool-permission: "edit" is not a key=value pair',
      '--tool-permission: "edit=deny=allow" is not a key=value pair',
      "--tool-permission: not valid JSON (...)",
      "--tool-permission: bash_allow must be a list of strings",
    ],
  );
});

Deno.test("a whole-number flag takes digits within its range and says the range it wants", () => {
  assert.deepEqual(
    [
      wholeNumber("8080", { flag: "--port", min: 1, max: 65535 }),
      wholeNumber(" 0 ", { flag: "--retries", min: 0 }),
    ],
    [8080, 0],
  );
  assert.deepEqual(
    [
      usage(() => wholeNumber("0", { flag: "--every", min: 1 })),
      usage(() => wholeNumber("1.5", { flag: "--every", min: 1 })),
      usage(() => wholeNumber("-3", { flag: "--retries", min: 0 })),
      usage(() => wholeNumber("70000", { flag: "--port", min: 1, max: 65535 })),
      usage(() => wholeNumber("", { flag: "n", min: 0, max: 1_000_000 })),
    ],
    [
      "--every takes a whole number of 1 or more",
      "--every takes a whole number of 1 or more",
      "--retries takes a whole number of 0 or more",
      "--port takes a whole number from 1 to 65535",
      "n takes a whole number from 0 to 1000000",
    ],
  );
});

Deno.test("a seconds flag takes a fraction above 0 up to its limit", () => {
  assert.deepEqual([
    seconds("0.5", { flag: "--tick", max: 86400 }),
    seconds("86400", { flag: "--tick", max: 86400 }),
  ], [
    0.5,
    86400,
  ]);
  for (const bad of ["0", "", "soon", "86401", "-1"]) {
    assert.equal(
      usage(() => seconds(bad, { flag: "--tick", max: 86400 })),
      "--tick takes a number of seconds above 0 (at most 86400)",
    );
  }
});

Deno.test("comma lists and key=value lists drop empty items and trim each part", () => {
  assert.deepEqual(commaList(" run_command, ,file_write,"), ["run_command", "file_write"]);
  assert.deepEqual(keyValuePairs("a=1, b = 2,", "--x"), [["a", "1"], ["b", "2"]]);
  assert.equal(usage(() => keyValuePairs("=1", "--x")), '--x: "=1" is not a key=value pair');
});
