import assert from "node:assert/strict";
import * as z from "zod";
import { echoTool, harness } from "../_support/engine.ts";
import { emptyLoadResult } from "../../src/plugin/load.ts";
import type { ServiceDef } from "../../src/plugin/api.ts";
import type { Tool } from "../../src/tool/types.ts";

/** A tool of plugin `p` that lists what its plugin added through the host. */
const lister: Tool = {
  name: "lister",
  category: "read",
  description: "Lists the plugin's added tools",
  schema: z.object({}),
  usesHost: true,
  run: (_args, ctx) => Promise.resolve(ctx.host!.list().join(", ")),
};

Deno.test("plugin services start once, before the first engine, with their plugin's tool host", async () => {
  const starts: string[] = [];
  const starter: ServiceDef = {
    name: "starter",
    start(ctx) {
      starts.push(ctx.worktree);
      ctx.host.add(echoTool("early.echo"));
      return Promise.resolve(["started with a note"]);
    },
  };
  const plugins = {
    ...emptyLoadResult(),
    tools: [lister],
    services: [starter],
    owners: new Map([["lister", "p"]]),
    serviceOwners: new Map([[starter, "p"]]),
  };
  await using h = await harness([
    { tool_calls: [{ name: "lister", arguments: {} }] },
    { text: "done" },
  ], { plugins, tools: [] });
  await h.runtime.engine();
  assert.deepEqual(await h.runtime.start(), ["started with a note"]);
  assert.deepEqual(starts, [h.worktree]);
  await h.engine.runTurn("list", { session: h.store.create("s") });
  // Offered in the very first turn, and the plugin's tools see it as their own.
  assert.deepEqual(
    h.fake.requests[0].body.tools.map((t: { function: { name: string } }) => t.function.name),
    ["ask", "delegate", "lister", "early__echo"],
  );
  assert.equal(h.fake.requests[1].body.messages.at(-1).content, "early.echo");
});

Deno.test("a service whose start throws becomes a warning, and engines still build", async () => {
  const broken: ServiceDef = {
    name: "broken",
    start: () => Promise.reject(new Error("no luck")),
  };
  await using h = await harness([{ text: "fine" }], { services: [broken] });
  assert.deepEqual(await h.runtime.start(), ["service broken start failed: no luck"]);
  const result = await h.engine.runTurn("hi", { session: h.store.create("s") });
  assert.equal(result.content, "fine");
});
