import assert from "node:assert/strict";
import { echoTool, harness } from "../_support/engine.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { assignWireNames } from "../../src/tool/wire_name.ts";

const BACKEND_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

Deno.test("wire names: safe names stay, dots become __, long or clashing ones get a hash, and each maps back", () => {
  const long = `srv.${"a".repeat(70)}`;
  const registry = new ToolRegistry();
  for (const name of ["file_read", "fs__read", "fs.read", "fs.list", "fs_.x", "fs._x", long]) {
    registry.add(echoTool(name));
  }
  registry.seal();
  const wire = Object.fromEntries(registry.list().map((t) => [t.name, registry.wireName(t.name)]));
  assert.deepEqual(wire, {
    file_read: "file_read",
    // `fs__read` is a real tool: `fs.read` must not shadow it.
    fs__read: "fs__read",
    "fs.read": "fs__read_d154e2a4",
    "fs.list": "fs__list",
    "fs_.x": "fs___x",
    // The same encoding as the one above: the later tool gets the hash.
    "fs._x": "fs___x_1b71347f",
    [long]: `srv__${"a".repeat(50)}_b57e6466`,
  });
  for (const [name, onWire] of Object.entries(wire)) {
    assert.match(onWire, BACKEND_RULE);
    assert.equal(registry.resolve(onWire)?.name, name, onWire);
    assert.equal(registry.resolve(name)?.name, name);
    assert.equal(registry.schemaOf(registry.resolve(name)!).function.name, onWire);
  }
  // An alias never loses to a wire name either.
  assert.equal(registry.resolve("file_read_alias")?.name, "file_read");
});

Deno.test("wire names are the same in every view and run: the hash depends only on the name", () => {
  const taken = new Set(["a.b", "a__b"]);
  const first = assignWireNames(["a__b", "a.b"], taken);
  const again = assignWireNames(["a__b", "a.b"], new Set(taken));
  assert.deepEqual([...first], [...again]);
  assert.deepEqual([...first], [["a__b", "a__b"], ["a.b", "a__b_108bf50c"]]);
});

Deno.test("tool names up to 128 characters of letters, digits, _ . and - are accepted, others refused", () => {
  const registry = new ToolRegistry();
  registry.add(echoTool(`x.${"y".repeat(126)}`));
  assert.throws(() => registry.add(echoTool(`x.${"y".repeat(127)}`)), /must be 1-128 letters/);
  assert.throws(() => registry.add(echoTool("a/b")), /must be 1-128 letters/);
});

Deno.test("the model is offered wire names, a call by wire or canonical name runs, and unknown-tool errors list wire names", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "srv__echo", arguments: { text: "by wire" } }] },
    { tool_calls: [{ name: "srv.echo", arguments: { text: "by canonical" } }] },
    { tool_calls: [{ name: "nope", arguments: {} }] },
    { text: "done" },
  ], { tools: [echoTool("srv.echo")] });
  const result = await h.engine.runTurn("go", { session: h.store.create("w") });
  assert.deepEqual(result.tool_calls.map((c) => [c.name, c.ok]), [
    ["srv.echo", true],
    ["srv.echo", true],
    ["nope", false],
  ]);
  assert.deepEqual(
    h.fake.requests[0].body.tools.map((t: { function: { name: string } }) => t.function.name),
    ["ask", "delegate", "srv__echo"],
  );
  assert.equal(
    h.fake.requests[3].body.messages.at(-1).content,
    'Error: unknown tool "nope". Available tools: ask, delegate, srv__echo',
  );
});
