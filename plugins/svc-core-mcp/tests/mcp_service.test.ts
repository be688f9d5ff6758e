import assert from "node:assert/strict";
import type { HttpEndpoint, ServiceContext, ServiceDef } from "../../../src/plugin/api.ts";
import { loadPlugins } from "../../../src/plugin/load.ts";
import { mountServices } from "../../../src/http/mod.ts";
import { register_services } from "../mod.ts";

const endpoint: HttpEndpoint = { fetch: () => Promise.resolve(Response.json({ from: "host" })) };

/** A host context whose MCP endpoint answers a marker; tools and sessions are never touched. */
function context(): ServiceContext {
  const unused = () => {
    throw new Error("the plugin must not call this");
  };
  return {
    worktree: "/w",
    version: "0.0.0",
    tools: { list: unused, call: unused },
    sessions: { list: unused, read: unused },
    endpoints: { mcp: () => endpoint },
  };
}

Deno.test("register_services adds the mcp service at /mcp, built from the host endpoint, and the autoconnect start hook", async () => {
  const services: ServiceDef[] = [];
  await register_services({ add: (service) => services.push(service) });
  assert.deepEqual(
    services.map((s) => [s.name, s.http?.path, typeof s.http?.create, typeof s.start]),
    [
      ["mcp", "/mcp", "function", "undefined"],
      ["mcp-autoconnect", undefined, "undefined", "function"],
    ],
  );
  assert.equal(await services[0].http!.create!(context()), endpoint);
});

Deno.test("svc serve mounts the loaded plugin's service at exactly /mcp", async () => {
  const worktree = await Deno.makeTempDir();
  try {
    const loaded = await loadPlugins({
      worktree,
      names: ["svc-core-mcp"],
      globalDir: worktree,
      trustLocal: false,
    });
    const mine = loaded.plugins.filter((p) => p.status === "loaded");
    assert.deepEqual(mine.map((p) => [p.name, p.origin]), [["svc-core-mcp", "bundled"]]);
    const warnings: string[] = [];
    const mounted = await mountServices(loaded.services, {
      ctx: context(),
      warn: (w) => warnings.push(w),
    });
    assert.deepEqual([[...mounted.keys()], warnings], [["/mcp"], []]);
    const res = await mounted.get("/mcp")!.fetch(new Request("http://127.0.0.1/mcp"));
    assert.deepEqual(await res.json(), { from: "host" });
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});

Deno.test("a service cannot take over a core route or a taken path", async () => {
  const warnings: string[] = [];
  const services: ServiceDef[] = [
    { name: "hijack", http: { path: "/chat", create: () => endpoint } },
    { name: "relative", http: { path: "mcp", create: () => endpoint } },
    { name: "first", http: { path: "/x", handler: () => Promise.resolve(new Response("1")) } },
    { name: "second", http: { path: "/x", create: () => endpoint } },
    { name: "broken", http: { path: "/y", create: () => Promise.reject(new Error("nope")) } },
    { name: "empty", http: { path: "/z" } },
    { name: "no-http" },
  ];
  const mounted = await mountServices(services, { ctx: context(), warn: (w) => warnings.push(w) });
  assert.deepEqual([...mounted.keys()], ["/x"]);
  assert.equal(await (await mounted.get("/x")!.fetch(new Request("http://h/x"))).text(), "1");
  assert.deepEqual(warnings, [
    "service hijack: path /chat cannot be mounted",
    "service relative: path mcp cannot be mounted",
    "service second: /x is already mounted by another service",
    "service broken: create failed: nope",
    "service empty: http needs a handler or create",
  ]);
});
