import assert from "node:assert/strict";
import { app, assertJsonHeaders } from "./_app.ts";
import { SessionStore } from "../../src/session/store.ts";
import { SESSION_ROUTES } from "../../src/http/sessions_routes.ts";

type Doc = { openapi: string; paths: Record<string, Record<string, unknown>> };

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
/** Paths a client could try: any the handler answers must be in the document. */
const PROBES = [
  "/",
  "/chat",
  "/sessions",
  "/sessions/demo",
  "/sessions/demo/abort",
  "/sessions/demo/messages",
  "/health",
  "/version",
  "/mcp",
  "/openapi.json",
  "/approvals",
  "/approvals/ap_1",
  `/approvals/apr_${"0".repeat(32)}`,
  "/jobs",
  "/jobs/nightly",
  "/jobs/nightly/approve",
  "/jobs/nightly/run",
];

/** The documented operations as `METHOD /path/{param}`. */
function operations(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((k) => k !== "parameters").map((method) =>
      `${method.toUpperCase()} ${path}`
    )
  );
}

/** An operation with each path parameter filled in by `demo`. */
const filled = (operation: string) => operation.replace(/\{[^}]+\}/g, "demo");

/** Whether `path` is an instance of `template` (`/sessions/{id}`). */
const instance = (template: string, path: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path);

async function send(a: Awaited<ReturnType<typeof app>>, operation: string): Promise<Response> {
  const [method, path] = operation.split(" ");
  return await a.call(method, path, method === "POST" ? { json: {} } : {});
}

Deno.test("GET /openapi.json answers an OpenAPI 3.1 document behind the token", async () => {
  await using a = await app([]);
  const res = await a.call("GET", "/openapi.json");
  assert.equal(res.status, 200);
  assertJsonHeaders(res);
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.deepEqual(doc.security, [{ bearer: [] }]);
  assert.deepEqual(doc.paths["/health"].get.security, []);
  const anonymous = await a.call("GET", "/openapi.json", { auth: false });
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const head = await a.call("HEAD", "/openapi.json");
  assert.deepEqual([head.status, await head.text()], [200, ""]);
});

Deno.test("every documented route is answered and every answered route is documented", async () => {
  await using a = await app([]);
  await new SessionStore(a.worktree).create("demo").appendMessage({
    role: "user",
    content: "hi",
    timestamp: new Date().toISOString(),
  });
  const doc: Doc = await (await a.call("GET", "/openapi.json")).json();
  const documented = operations(doc);
  const templates = Object.keys(doc.paths);
  // DELETE last: it removes the session the other operations use.
  const ordered = documented.map(filled).sort((x, y) =>
    Number(x.startsWith("DELETE ")) - Number(y.startsWith("DELETE "))
  );
  for (const operation of ordered) {
    const res = await send(a, operation);
    const text = await res.text();
    assert.ok(res.status !== 405 && text !== '{"error":"not found"}', `${operation} is answered`);
  }
  await new SessionStore(a.worktree).create("demo").appendMessage({
    role: "user",
    content: "again",
    timestamp: new Date().toISOString(),
  });
  for (const path of PROBES) {
    for (const method of METHODS) {
      const operation = `${method} ${path}`;
      const [, template] = documented.map((o) => o.split(" "))
        .find(([m, t]) => m === method && instance(t, path)) ?? [];
      if (template || operation === "DELETE /sessions/demo") continue;
      // Not documented: 405, or 404 (any 404 under a documented path: the thing does not exist).
      const res = await send(a, operation);
      const text = await res.text();
      const known = templates.some((t) => instance(t, path));
      const unrouted = res.status === 405 ||
        (res.status === 404 && (known || text === '{"error":"not found"}'));
      assert.ok(unrouted, `${operation} answers ${res.status} but is not documented`);
    }
  }
  const handler = await Deno.readTextFile(new URL("../../src/http/handler.ts", import.meta.url));
  const routes = /const ROUTES[^{]*\{([^}]*)\}/.exec(handler)![1];
  const known = [...routes.matchAll(/"(\/[^"]*)":\s*"([A-Z]+)"/g)].map((m) => `${m[2]} ${m[1]}`);
  for (const [path, methods] of Object.entries(SESSION_ROUTES)) {
    for (const method of methods) known.push(`${method} ${path}`);
  }
  assert.ok(known.length >= 6);
  for (const operation of known) {
    assert.ok(documented.includes(operation), `${operation} documented`);
  }
});
