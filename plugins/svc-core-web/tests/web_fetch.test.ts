import assert from "node:assert/strict";
import { saveResults } from "../src/store.ts";
import { createWebFetchTool, renderPage, windowSize } from "../src/web_fetch.ts";
import { numberedLines, toolContext, withServer } from "./local_server.ts";

// Test-only allowance: the local server lives on 127.0.0.1, which the tool refuses otherwise.
const tool = createWebFetchTool({ allowHosts: ["127.0.0.1"] });

Deno.test("web_fetch turns an HTML page into readable text", async () => {
  await withServer(async (base) => {
    const out = await tool.run({ url: `${base}/page.html` }, toolContext("/w", "fetch-html"));
    const text = `# Hello\n\nSome text with a link (${base}/next.html).\n\n- one\n- two`;
    assert.deepEqual(out, {
      content: [
        `URL: ${base}/page.html (text/html)`,
        "Title: Local page",
        `Characters 0-${text.length} of ${text.length}`,
        "",
        text,
      ].join("\n"),
    });
  });
});

Deno.test("web_fetch pages long text with exact continuation offsets", async () => {
  await withServer(async (base) => {
    const ctx = toolContext("/w", "fetch-long");
    const text = numberedLines(1000);
    const first = await tool.run({ url: `${base}/long.txt` }, ctx);
    assert.deepEqual(first, {
      content: `URL: ${base}/long.txt (text/plain)\nCharacters 0-20000 of 49999\n\n` +
        `${text.slice(0, 19999)}\n\n[... more: call web_fetch with offset=20000]`,
    });
    const second = await tool.run({ url: `${base}/long.txt`, offset: 20000 }, ctx);
    assert.deepEqual(second, {
      content: `URL: ${base}/long.txt (text/plain)\nCharacters 20000-40000 of 49999\n\n` +
        `${text.slice(20000, 39999)}\n\n[... more: call web_fetch with offset=40000]`,
    });
    const last = await tool.run({ url: `${base}/long.txt`, offset: 40000 }, ctx);
    assert.deepEqual(last, {
      content: `URL: ${base}/long.txt (text/plain)\nCharacters 40000-49999 of 49999\n\n` +
        text.slice(40000),
    });
    assert.deepEqual(await tool.run({ url: `${base}/long.txt`, offset: 60000 }, ctx), {
      content: "Error: Offset 60000 is past the end of the page (49999 characters)",
      ok: false,
    });
  });
});

Deno.test("web_fetch shrinks its window below a small tool_max_result_chars", () => {
  assert.deepEqual(
    [0, 100000, 8000, 700].map((cap) => windowSize({ tool_max_result_chars: cap })),
    [20000, 20000, 7400, 500],
  );
  const page = { url: "https://x.test/", title: "", mediaType: "text/plain", text: "abcdef" };
  assert.deepEqual(renderPage(page, { offset: 2, size: 3 }), {
    content: "URL: https://x.test/ (text/plain)\nCharacters 2-5 of 6\n\ncde\n\n" +
      "[... more: call web_fetch with offset=5]",
  });
});

Deno.test("web_fetch marks a page cut at the byte cap", async () => {
  await withServer(async (base) => {
    const small = createWebFetchTool({ allowHosts: ["127.0.0.1"], maxBytes: 64 * 1024 });
    const out = await small.run({ url: `${base}/endless` }, toolContext("/w", "fetch-cap", {}));
    const content = typeof out === "string" ? out : out.content;
    assert.match(content, /^URL: .*\/endless \(text\/plain\)\nCharacters 0-20000 of 65591\n/);
    const rest = await small.run(
      { url: `${base}/endless`, offset: 60000 },
      toolContext("/w", "fetch-cap"),
    );
    assert.match(
      typeof rest === "string" ? rest : rest.content,
      /y\n\n\[page cut at the download cap; the rest was not read\]$/,
    );
  });
});

Deno.test("web_fetch fetches a search result by id and refuses local results", async () => {
  await withServer(async (_base, port) => {
    const resolve = () => Promise.resolve(["127.0.0.1"]);
    const viaName = createWebFetchTool({ allowHosts: ["site.test"], resolve });
    saveResults("fetch-id", [
      { title: "JSON", url: `http://site.test:${port}/data.json`, snippet: "" },
      { title: "Local", url: `http://127.0.0.1:${port}/data.json`, snippet: "" },
    ]);
    const ctx = toolContext("/w", "fetch-id");
    assert.deepEqual(await viaName.run({ id: 1 }, ctx), {
      content: `URL: http://site.test:${port}/data.json (application/json)\n` +
        'Characters 0-14 of 14\n\n{"answer": 42}',
    });
    assert.deepEqual(await createWebFetchTool().run({ id: 2 }, ctx), {
      content: "Error: Result 2 points to a private or local host (127.0.0.1); pass its URL as " +
        "url so the user can approve it",
      ok: false,
    });
    assert.deepEqual(await viaName.run({ id: 3 }, ctx), {
      content: "Error: No result 3; the last web_search returned 2",
      ok: false,
    });
  });
});

Deno.test("web_fetch explains missing, conflicting and invalid arguments", async () => {
  const ctx = toolContext("/w", "fetch-args");
  const outputs = await Promise.all([
    tool.run({}, ctx),
    tool.run({ url: "https://a.test/", id: 1 }, ctx),
    tool.run({ id: 1 }, ctx),
    tool.run({ url: "::nope" }, ctx),
    tool.run({ url: "gopher://a.test/" }, ctx),
  ]);
  assert.deepEqual(outputs.map((o) => typeof o === "string" ? o : o.content), [
    "Error: Pass url, or id (a result number from web_search)",
    "Error: Pass either url or id, not both",
    "Error: No web_search results in this session yet; search first or pass url",
    "Error: Invalid URL: ::nope",
    "Error: Only http and https URLs can be fetched, not gopher:",
  ]);
});

Deno.test("web_fetch given a literal loopback url fetches only after the engine asked", async () => {
  await withServer(async (base, port) => {
    const plain = createWebFetchTool();
    const url = `http://127.0.0.1:${port}/redirect?to=${
      encodeURIComponent(`http://localhost:${port}/`)
    }`;
    assert.equal(plain.resolvePolicy!({ url, _permissions: {} }, "/w"), "ask");
    const direct = await plain.run({ url: `${base}/data.json` }, toolContext("/w", "fetch-ask"));
    assert.equal(
      typeof direct === "string" ? direct : direct.content,
      `URL: ${base}/data.json (application/json)\nCharacters 0-14 of 14\n\n{"answer": 42}`,
    );
    const named = await plain.run(
      { url: `http://localhost:${port}/data.json` },
      toolContext("/w", "fetch-ask"),
    );
    assert.match(typeof named === "string" ? named : named.content, /\{"answer": 42\}$/);
    const redirected = await plain.run({ url }, toolContext("/w", "fetch-ask"));
    assert.match(
      typeof redirected === "string" ? redirected : redirected.content,
      new RegExp(
        `^Error: Refused to fetch http://localhost:${port}/: localhost is a loopback host name`,
      ),
    );
  });
});

Deno.test("web_fetch reports binary pages as errors", async () => {
  await withServer(async (base) => {
    assert.deepEqual(await tool.run({ url: `${base}/image.png` }, toolContext("/w", "fetch-bin")), {
      content:
        `Error: ${base}/image.png is binary content (image/png); web_fetch reads only HTML, ` +
        "text and JSON",
      ok: false,
    });
  });
});
