import assert from "node:assert/strict";
import { ToolCallAssembly } from "../../src/provider/tool_call_assembly.ts";

/** The calls assembled from `parts`, as [id, name, arguments]. */
function assemble(parts: unknown[]): Array<[string, string, string]> {
  const calls = new ToolCallAssembly();
  for (const part of parts) calls.add(part);
  return calls.assemble().map(({ call }) => [call.id, call.function.name, call.function.arguments]);
}

const fn = (name: string, args: string) => ({ function: { name, arguments: args } });

Deno.test("a new name on an already started index starts a new call", () => {
  assert.deepEqual(
    assemble([
      { index: 0, ...fn("grep", '{"pattern":"a"}') },
      { index: 0, ...fn("list_dir", '{"path":"."}') },
    ]),
    [["call_0", "grep", '{"pattern":"a"}'], ["call_1", "list_dir", '{"path":"."}']],
  );
});

Deno.test("whole arguments sent again for the same call are neither glued on nor a second call", () => {
  assert.deepEqual(
    assemble([
      { index: 0, id: "c1", ...fn("grep", '{"pattern":') },
      { index: 0, ...fn("", '"a"}') },
      { index: 0, id: "c1", ...fn("grep", '{"pattern":"a"}') },
    ]),
    [["c1", "grep", '{"pattern":"a"}']],
  );
});

Deno.test("an indexless part with a known id joins that call even after another call started", () => {
  assert.deepEqual(
    assemble([
      { id: "a", ...fn("grep", '{"pattern":') },
      { id: "b", ...fn("list_dir", '{"path":"."}') },
      { id: "a", function: { arguments: '"x"}' } },
    ]),
    [["a", "grep", '{"pattern":"x"}'], ["b", "list_dir", '{"path":"."}']],
  );
});

Deno.test("a made-up call id never repeats an id the server gave", () => {
  assert.deepEqual(
    assemble([
      { index: 0, ...fn("grep", "{}") },
      { index: 1, id: "call_0", ...fn("list_dir", "{}") },
    ]),
    [["call_0_2", "grep", "{}"], ["call_0", "list_dir", "{}"]],
  );
});

Deno.test("hostile tool-call parts are skipped instead of throwing", () => {
  assert.deepEqual(
    assemble([null, 7, "x", { index: "0", id: 5, function: "f" }, { index: 0, ...fn("ok", "") }]),
    [["call_1", "ok", "{}"]],
  );
});
