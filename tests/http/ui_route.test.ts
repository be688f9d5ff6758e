import assert from "node:assert/strict";
import { app, BASE } from "./_app.ts";
import { UI_CSP, UI_PATHS } from "../../src/http/ui_route.ts";
import { PAGE_HTML } from "../../src/http/ui/page_html.ts";
import { PAGE_JS } from "../../src/http/ui/page_js.ts";

const statusOf = async (response: Promise<Response>) => {
  const res = await response;
  await res.body?.cancel();
  return res.status;
};

Deno.test("without --ui GET / and the page's files answer as before: 401, and 404 with the token", async () => {
  await using a = await app([]);
  for (const path of UI_PATHS) {
    assert.equal(await statusOf(a.call("GET", path, { auth: false })), 401, path);
    const res = await a.call("GET", path);
    assert.deepEqual([res.status, await res.json()], [404, { error: "not found" }], path);
  }
});

Deno.test("with --ui the page's three files are open and static, under the page's policy", async () => {
  await using a = await app([], { handler: { ui: true } });
  const types: Record<string, string> = {
    "/": "text/html; charset=utf-8",
    "/ui/app.js": "text/javascript; charset=utf-8",
    "/ui/app.css": "text/css; charset=utf-8",
  };
  assert.deepEqual([...UI_PATHS].sort(), Object.keys(types).sort());
  for (const [path, type] of Object.entries(types)) {
    const res = await a.call("GET", path, { auth: false });
    const headers = Object.fromEntries(res.headers);
    await res.body?.cancel();
    assert.deepEqual([res.status, headers], [200, {
      "content-type": type,
      "content-security-policy": UI_CSP,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
    }], path);
    const head = await a.call("HEAD", path, { auth: false });
    assert.deepEqual([head.status, await head.text()], [200, ""], path);
    const post = await a.call("POST", path, { json: {} });
    assert.deepEqual([post.status, post.headers.get("allow")], [405, "GET, HEAD"], path);
    await post.body?.cancel();
  }
  assert.equal(
    UI_CSP,
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
      "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
      "require-trusted-types-for 'script'; trusted-types 'none'",
  );
});

Deno.test("with --ui everything else still needs the token, and foreign hosts and origins are refused", async () => {
  await using a = await app([], { handler: { ui: true } });
  for (const path of ["/sessions", "/jobs", "/approvals", "/openapi.json", "/ui/", "/ui/x.js"]) {
    assert.equal(await statusOf(a.call("GET", path, { auth: false })), 401, path);
  }
  assert.equal(await statusOf(a.call("GET", "/index.html")), 404);
  const refused: Array<Record<string, string>> = [
    { origin: "http://evil.example" },
    { origin: "null" },
    { "sec-fetch-site": "cross-site" },
    { host: "evil.example:8787" },
  ];
  for (const headers of refused) {
    for (const path of ["/", "/ui/app.js", "/sessions"]) {
      assert.equal(await statusOf(a.call("GET", path, { headers })), 403, JSON.stringify(headers));
    }
  }
});

Deno.test("the page's own same-origin requests pass the Host and Origin checks with the token", async () => {
  await using a = await app([{ text: "hi" }], { handler: { ui: true } });
  // What Chromium sends for the page's fetches: POSTs carry Origin, all carry Sec-Fetch-Site.
  const page = { origin: BASE, "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors" };
  const listed = await a.call("GET", "/sessions", { headers: { "sec-fetch-site": "same-origin" } });
  assert.deepEqual([listed.status, await listed.json()], [200, { sessions: [] }]);
  const chat = await a.call("POST", "/chat", { json: { prompt: "x" }, headers: page });
  assert.deepEqual([chat.status, (await chat.json()).content], [200, "hi"]);
  const answer = await a.call("POST", `/approvals/apr_${"0".repeat(32)}`, {
    json: { answer: "once" },
    headers: page,
  });
  assert.equal(await statusOf(Promise.resolve(answer)), 404);
  const loaded = await a.call("GET", "/", { auth: false, headers: { "sec-fetch-site": "none" } });
  assert.equal(await loaded.text(), PAGE_HTML);
});

Deno.test("the page's script parses and never hands text to an HTML sink or to eval", () => {
  new Function(PAGE_JS); // throws a SyntaxError if the script does not parse
  const sinks =
    /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|srcdoc/;
  assert.equal(sinks.exec(PAGE_JS), null);
  assert.equal(/<script(?![^>]*\ssrc=)/.exec(PAGE_HTML), null, "no inline script");
  assert.equal(/<style|\sstyle=|\son[a-z]+=/i.exec(PAGE_HTML), null, "no inline style or handler");
});
