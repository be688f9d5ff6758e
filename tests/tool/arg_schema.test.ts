import assert from "node:assert/strict";
import * as z from "zod";
import { argSchema, loadZod, type Zod } from "../../src/tool/arg_schema.ts";
import { normalizeToolCall } from "../../src/tool/normalize.ts";
import { prepareSchemas, ToolRegistry } from "../../src/tool/registry.ts";
import type { Tool } from "../../src/tool/types.ts";
import { zodApi } from "../../src/tool/zod_api.ts";

let builds = 0;
const shape = (zod: Zod) => ({
  path: zod.string().describe("File path"),
  lines: zod.number().int().min(1).optional(),
});
const builder = (zod: Zod) => {
  builds++;
  return zod.object(shape(zod));
};

const tool = (schema: Tool["schema"]): Tool => ({
  name: "peek",
  category: "read",
  description: "Peek at a file",
  schema,
  run: (args) => Promise.resolve(JSON.stringify(args)),
});

Deno.test("a tool whose schema is a builder advertises the same JSON schema as a built one", async () => {
  const lazy = tool(builder);
  await prepareSchemas([lazy]);
  const registry = new ToolRegistry();
  registry.add(lazy);
  const eager = new ToolRegistry();
  eager.add(tool(z.object(shape(z))));
  assert.deepEqual(registry.schemaOf(lazy), eager.schemaOf(eager.list()[0]));
  assert.deepEqual(registry.schemaOf(lazy).function.parameters, {
    type: "object",
    properties: {
      path: { type: "string", description: "File path" },
      lines: { type: "integer", minimum: 1 },
    },
    required: ["path"],
  });
});

Deno.test("a builder runs once for a tool and its copies, with the zod svc loads", async () => {
  const zod = await loadZod();
  assert.equal(zod, zodApi);
  const counted = (schema: Tool["schema"]) => {
    const before = builds;
    const first = argSchema(tool(schema));
    const copy = argSchema({ ...tool(schema), name: "peek_copy" });
    return { first, copy, built: builds - before };
  };
  const fresh = (zod: Zod) => builder(zod);
  const { first, copy, built } = counted(fresh);
  assert.equal(first, copy);
  assert.equal(built, 1);
  assert.equal(counted(fresh).built, 0);
});

Deno.test("a call to a builder-schema tool is validated and coerced once zod is loaded", async () => {
  await loadZod();
  const lazy = tool((zod) => builder(zod));
  const view = new ToolRegistry();
  view.add(lazy);
  view.seal();
  assert.deepEqual(
    normalizeToolCall(view, {
      name: "peek",
      rawArguments: `{"file": "a.txt", "lines": "3"}`,
      available: ["peek"],
    }),
    {
      ok: true,
      tool: lazy,
      args: { path: "a.txt", lines: 3 },
    },
  );
  assert.deepEqual(
    normalizeToolCall(view, { name: "peek", rawArguments: `{"lines": 0}`, available: ["peek"] }),
    {
      ok: false,
      tool: lazy,
      error: "Error: invalid arguments for peek: path: Invalid input: expected string, " +
        "received undefined; lines: Too small: expected number to be >=1",
    },
  );
});
