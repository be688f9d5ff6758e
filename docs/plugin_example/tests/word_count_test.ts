import assert from "node:assert/strict";
import { register_tools } from "../mod.ts";
import type { Tool, ToolContext } from "../src/svc_types.ts";

const ctx: ToolContext = {
  worktree: Deno.cwd(),
  signal: new AbortController().signal,
};

Deno.test("register_tools adds word_count", () => {
  const added: Tool[] = [];
  register_tools({ add: (tool) => added.push(tool) });
  assert.deepEqual(added.map((tool) => [tool.name, tool.category]), [[
    "word_count",
    "read",
  ]]);
});

Deno.test("word_count counts words, lines and characters", async () => {
  const added: Tool[] = [];
  register_tools({ add: (tool) => added.push(tool) });
  assert.equal(
    await added[0].run({ text: "one two\nthree" }, ctx),
    "3 words, 2 lines, 13 characters",
  );
  assert.deepEqual(await added[0].run({ text: "" }, ctx), {
    content: "text is empty",
    ok: false,
  });
});
