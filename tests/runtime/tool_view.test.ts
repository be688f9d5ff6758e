import assert from "node:assert/strict";
import * as z from "zod";
import { echoTool, harness } from "../_support/engine.ts";
import type { Tool } from "../../src/tool/types.ts";
import { ToolSet } from "../../src/tool/tool_set.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";

/** A tool that imports `remote.echo` through its host interface (as an MCP client would). */
const importer: Tool = {
  name: "importer",
  category: "read",
  description: "Imports a remote tool",
  schema: z.object({}),
  usesHost: true,
  run(_args, ctx) {
    ctx.host!.add({ ...echoTool("remote.echo", "read"), aliases: [] });
    return Promise.resolve(`imported: ${ctx.host!.list().join(", ")}`);
  },
};

const offeredNames = (body: { tools?: Array<{ function: { name: string } }> }) =>
  (body.tools ?? []).map((t) => t.function.name);

Deno.test("a tool added through the host is offered from the next turn, not mid-turn", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "importer", arguments: {} }] },
    { tool_calls: [{ name: "remote.echo", arguments: { text: "too early" } }] },
    { text: "first turn done" },
    { tool_calls: [{ name: "remote.echo", arguments: { text: "now" } }] },
    { text: "second turn done" },
  ], { tools: [importer] });
  const session = h.store.create("t");
  const first = await h.engine.runTurn("import it", { session });
  assert.deepEqual(first.tool_calls.map((c) => [c.name, c.ok]), [
    ["importer", true],
    ["remote.echo", false],
  ]);
  assert.match(
    h.fake.requests[2].body.messages.at(-1).content,
    /^Error: unknown tool "remote.echo"/,
  );
  const second = await h.engine.runTurn("use it", { session });
  assert.deepEqual(second.tool_calls.map((c) => [c.name, c.ok]), [["remote.echo", true]]);
  assert.deepEqual(offeredNames(h.fake.requests[0].body), ["ask", "delegate", "importer"]);
  assert.deepEqual(offeredNames(h.fake.requests[3].body), [
    "ask",
    "delegate",
    "importer",
    "remote__echo",
  ]);
  // Every engine of the runtime sees it; the base registry stays as loaded.
  const other = await h.runtime.engine();
  assert.deepEqual(other.offeredTools().map((t) => t.name), [
    "ask",
    "delegate",
    "importer",
    "remote.echo",
  ]);
  assert.deepEqual(h.runtime.registry.list().map((t) => t.name), ["ask", "delegate", "importer"]);
});

Deno.test("the host lets a plugin remove only its own tools and never shadow svc's", () => {
  const base = new ToolRegistry();
  base.add(echoTool("file_read"));
  base.seal();
  const set = new ToolSet((name) => base.resolve(name) !== undefined);
  const mcp = set.host("svc-core-mcp");
  const other = set.host("other-plugin");
  mcp.add(echoTool("srv.search"));
  assert.throws(() => other.add(echoTool("srv.search")), /already taken/);
  assert.throws(() => mcp.add(echoTool("file_read")), /already taken/);
  assert.throws(() => mcp.add(echoTool("file_read_alias")), /already taken/);
  assert.throws(() => mcp.add(echoTool("bad name")), /must be 1-128/);
  assert.equal(other.remove("srv.search"), false);
  assert.deepEqual([mcp.list(), other.list()], [["srv.search"], []]);
  assert.equal(mcp.remove("srv.search"), true);
  assert.deepEqual(set.tools(), []);
});

Deno.test("the base registry is sealed once loaded and a view never changes it", () => {
  const base = new ToolRegistry();
  base.add(echoTool("a"));
  base.seal();
  assert.throws(() => base.add(echoTool("b")), /sealed registry/);
  const view = base.with([echoTool("b")]);
  assert.deepEqual(view.list().map((t) => t.name), ["a", "b"]);
  assert.deepEqual(base.list().map((t) => t.name), ["a"]);
  assert.equal(view.resolve("b_alias")?.name, "b");
  assert.equal(base.resolve("b_alias"), undefined);
  assert.throws(() => view.add(echoTool("c")), /sealed registry/);
});
