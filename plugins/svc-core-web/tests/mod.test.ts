import assert from "node:assert/strict";
import type { Tool } from "../../../src/plugin/api.ts";
import { register_tools } from "../mod.ts";
import { argSchema, loadZod } from "../../../src/tool/arg_schema.ts";

await loadZod();

Deno.test("register_tools adds web_search and web_fetch with their aliases", async () => {
  const tools: Tool[] = [];
  await register_tools!({ add: (tool) => tools.push(tool) });
  const shape = tools.map((t) => ({
    name: t.name,
    category: t.category,
    aliases: t.aliases,
    argAliases: t.argAliases,
    args: Object.keys(argSchema(t).shape),
    resolver: typeof t.resolvePolicy,
  }));
  assert.deepEqual(shape, [
    {
      name: "web_search",
      category: "web",
      aliases: ["search", "web"],
      argAliases: { q: "query" },
      args: ["query"],
      resolver: "undefined",
    },
    {
      name: "web_fetch",
      category: "web",
      aliases: ["open", "fetch_page", "fetch"],
      argAliases: { cursor: "offset" },
      args: ["url", "id", "offset"],
      resolver: "function",
    },
  ]);
});

Deno.test("the manifest declares the plugin exactly", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../manifest.json", import.meta.url)),
  );
  assert.deepEqual({ ...manifest, description: typeof manifest.description }, {
    name: "svc-core-web",
    version: "0.27.0",
    description: "string",
    svc_version: ">=0.27.0 <1.0.0",
    runtime: { deno: ">=2.0.0" },
    entry: "mod.ts",
    requires: [],
    permissions: ["net"],
  });
});
