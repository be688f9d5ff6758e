import assert from "node:assert/strict";
import * as z from "zod";
import type { Tool } from "../../../src/plugin/api.ts";
import { register_tools } from "../mod.ts";
import { argSchema, loadZod } from "../../../src/tool/arg_schema.ts";

await loadZod();

const registered: Tool[] = [];
register_tools({ add: (tool) => registered.push(tool) });

Deno.test("svc-core-fs registers its four tools with categories, aliases and path args", () => {
  assert.deepEqual(
    registered.map((t) => [t.name, t.category, t.aliases ?? [], t.pathArgs]),
    [
      ["file_read", "read", ["read_file", "read", "view"], ["path"]],
      ["list_dir", "list", ["ls"], ["path"]],
      ["glob", "read", [], ["path"]],
      ["grep", "read", ["find"], ["path"]],
    ],
  );
});

Deno.test("svc-core-fs tool schemas declare the SPEC arguments", () => {
  assert.deepEqual(
    registered.map((t) => [t.name, Object.keys(argSchema(t).shape)]),
    [
      ["file_read", ["path", "offset", "limit"]],
      ["list_dir", ["path", "depth"]],
      ["glob", ["pattern", "path"]],
      ["grep", ["pattern", "path", "glob"]],
    ],
  );
});

Deno.test("svc-core-fs descriptions and schemas stay compact for the 10 KB request budget", () => {
  for (const tool of registered) {
    const description = new TextEncoder().encode(tool.description).length;
    const schema = JSON.stringify(z.toJSONSchema(argSchema(tool), { io: "input" })).length;
    assert.ok(description <= 350, `${tool.name} description is ${description} bytes`);
    assert.ok(description + schema <= 900, `${tool.name} totals ${description + schema} bytes`);
  }
});

Deno.test("svc-core-fs manifest names its entry, version ranges and permissions", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../manifest.json", import.meta.url)),
  );
  assert.deepEqual(manifest, {
    name: "svc-core-fs",
    version: "0.27.0",
    description:
      "Read-only file tools: file_read, list_dir, glob and grep (ripgrep when installed)",
    svc_version: ">=0.27.0 <1.0.0",
    runtime: { deno: ">=2.0.0" },
    entry: "mod.ts",
    requires: [],
    permissions: ["read", "run"],
  });
});
