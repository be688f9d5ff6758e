import assert from "node:assert/strict";
import * as z from "zod";
import type { Tool } from "../../../src/plugin/api.ts";
import { register_tools } from "../mod.ts";
import { argSchema, loadZod } from "../../../src/tool/arg_schema.ts";

await loadZod();

const registered: Tool[] = [];
register_tools({ add: (tool) => registered.push(tool) });

Deno.test("svc-core-edit registers file_write and file_edit in the edit category", () => {
  assert.deepEqual(
    registered.map((
      t,
    ) => [t.name, t.category, t.aliases, t.pathArgs, Object.keys(argSchema(t).shape)]),
    [
      ["file_write", "edit", ["write_file", "write"], ["path"], ["path", "content", "mode"]],
      ["file_edit", "edit", ["edit"], ["path"], ["path", "old", "new", "count"]],
    ],
  );
});

Deno.test("svc-core-edit descriptions and schemas stay compact for the 10 KB request budget", () => {
  for (const tool of registered) {
    const description = new TextEncoder().encode(tool.description).length;
    const schema = JSON.stringify(z.toJSONSchema(argSchema(tool), { io: "input" })).length;
    assert.ok(description <= 350, `${tool.name} description is ${description} bytes`);
    assert.ok(description + schema <= 900, `${tool.name} totals ${description + schema} bytes`);
  }
});

Deno.test("svc-core-edit manifest names its entry, version ranges and permissions", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../manifest.json", import.meta.url)),
  );
  assert.deepEqual(manifest, {
    name: "svc-core-edit",
    version: "0.27.0",
    description: "File-changing tools: file_write and file_edit with a diff preview",
    svc_version: ">=0.27.0 <1.0.0",
    runtime: { deno: ">=2.0.0" },
    entry: "mod.ts",
    requires: [],
    permissions: ["read", "write"],
  });
});
