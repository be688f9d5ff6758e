/**
 * The checks an approver's answer to an MCP server's form question passes (the same ones the
 * REPL applies to a person's typed answers), and how an Elicitation hook's reply is read.
 * Adversarial: fields the form lacks (prototype names included), values of the wrong JSON type.
 */
import assert from "node:assert/strict";
import { checkContent, type FormSchema } from "../../src/tool/elicitation_form.ts";
import { readReply, replyOf } from "../../src/tool/hook_reply.ts";
import { HookRunner } from "../../src/tool/hooks.ts";

const FORM: FormSchema = {
  properties: {
    branch: { type: "string", default: "main" },
    force: { type: "boolean" },
    count: { type: "integer", minimum: 1, maximum: 5 },
    color: { type: "string", enum: ["red", "green"] },
    tags: { type: "array", items: { enum: ["a", "b"] } },
  },
  required: ["branch", "color"],
};

Deno.test("checkContent keeps a fitting answer and fills a missing required field's default", () => {
  assert.deepEqual(
    checkContent(FORM, { color: "green", force: false, count: 5, tags: ["a", "b"] }),
    {
      ok: true,
      content: { color: "green", force: false, count: 5, tags: ["a", "b"], branch: "main" },
    },
  );
});

Deno.test("checkContent refuses fields the form lacks, wrong types, values off the list or range", () => {
  const refused = (content: unknown) => {
    const checked = checkContent(FORM, content);
    return checked.ok ? "accepted" : checked.error;
  };
  assert.deepEqual(
    [
      refused({ color: "red", admin: true }),
      refused(JSON.parse('{"color":"red","__proto__":{"admin":true}}')),
      refused({ color: "red", constructor: "x" }),
      refused({ color: "red", force: "yes" }),
      refused({ color: "red", count: "3" }),
      refused({ color: "red", count: 9 }),
      refused({ color: "red", count: 2.5 }),
      refused({ color: "purple" }),
      refused({ color: "red", tags: ["a", "z"] }),
      refused({ color: "red", tags: "a" }),
      refused({ branch: "x" }),
      refused(["red"]),
      refused(null),
    ],
    [
      `"admin" is not a field of the form`,
      `"__proto__" is not a field of the form`,
      `"constructor" is not a field of the form`,
      `"force" is not a boolean`,
      `"count" is not an integer`,
      `"count": Answer between 1 and 5`,
      `"count": Answer with a whole number`,
      `"color": Pick one from the list`,
      `"tags": Pick from the list`,
      `"tags" is not a list of strings`,
      `"color" is required`,
      "the content is not a JSON object",
      "the content is not a JSON object",
    ],
  );
});

Deno.test("an Elicitation hook's reply: action and content in Claude Code's shape, exit 2 declines", () => {
  const out = (specific: Record<string, unknown>) =>
    replyOf("Elicitation", { hookSpecificOutput: { hookEventName: "Elicitation", ...specific } });
  assert.deepEqual(out({ action: "accept", content: { color: "red" } }), {
    elicitation: { action: "accept", content: { color: "red" } },
  });
  assert.deepEqual(out({ action: "decline", content: { color: "red" } }), {
    elicitation: { action: "decline" },
  });
  assert.deepEqual(out({ action: "allow" }), {
    error: `action "allow" is not accept, decline or cancel`,
  });
  assert.deepEqual(out({ action: "accept", content: "red" }), {
    error: "content is not an object",
  });
  assert.deepEqual(out({}), {});
  assert.deepEqual(
    readReply("Elicitation", {
      code: 2,
      stdout: "",
      stderr: "not today\n",
      timedOut: false,
      timeoutS: 60,
    }),
    { block: "not today" },
  );
});

Deno.test("a plugin's Elicitation hook may decline a question but never accept one", async () => {
  const runner = (action: string) =>
    new HookRunner("/", {
      plugins: [{
        plugin: "p",
        hook: {
          event: "Elicitation",
          run: () => ({ hookSpecificOutput: { action, content: { color: "red" } } }),
        },
      }],
    });
  const asked = (action: string) =>
    runner(action).run("Elicitation", { mcp_server_name: "srv" }, {
      session: { id: "s" },
      match: ["srv"],
    }).then((outcome) => outcome.elicitation);
  assert.deepEqual(
    [await asked("accept"), await asked("decline"), await asked("cancel")],
    [undefined, { action: "decline" }, { action: "cancel" }],
  );
});
