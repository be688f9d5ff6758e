import assert from "node:assert/strict";
import { join } from "node:path";
import { parseDdgHtml } from "../src/search.ts";
import { DEFAULT_BACKEND, loadBackend } from "../src/settings.ts";
import { createWebFetchTool } from "../src/web_fetch.ts";
import { createWebSearchTool, searchWeb } from "../src/web_search.ts";
import { type Routes, toolContext, withServer } from "./local_server.ts";

/** A results page shaped like html.duckduckgo.com/html/, with one ad. */
function ddgPage(site: string): string {
  const result = (href: string, title: string, snippet: string, extra = "") =>
    `<div class="result results_links results_links_deep web-result ${extra}">
      <div class="links_main links_deep result__body"><h2 class="result__title">
      <a rel="nofollow" class="result__a" href="${href}">${title}</a></h2>
      <a class="result__snippet" href="${href}">${snippet}</a></div></div>`;
  return `<html><body><div id="links">
    ${result("https://duckduckgo.com/y.js?ad_domain=ads.test", "Buy now", "Ad", "result--ad")}
    ${
    result(
      `//duckduckgo.com/l/?uddg=${encodeURIComponent(`${site}/page.html`)}&amp;rut=abc`,
      "Local <b>page</b>",
      "A page &amp; its <b>snippet</b>",
    )
  }
    ${result(`${site}/data.json`, "Data", "")}
  </div></body></html>`;
}

const routes: Routes = (url, base) => {
  const site = base.replace("127.0.0.1", "site.test");
  if (url.pathname === "/ddg/html/") {
    if (url.searchParams.get("q") === "blocked") {
      return new Response("<form id='challenge-form'>anomaly</form>", {
        headers: { "content-type": "text/html" },
      });
    }
    return new Response(ddgPage(site), { headers: { "content-type": "text/html" } });
  }
  if (url.pathname === "/searx/search") {
    const results = [
      {
        title: "Local page",
        url: `${site}/page.html`,
        content: `About ${url.searchParams.get("q")}`,
      },
      { title: "Skipped", url: "javascript:alert(1)", content: "" },
    ];
    return Response.json({ query: url.searchParams.get("q"), results });
  }
};

async function globalDir(settings: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "web.json"), JSON.stringify(settings));
  return dir;
}

const resolve = () => Promise.resolve(["127.0.0.1"]);

Deno.test("web_search parses a DuckDuckGo-shaped page into numbered results", async () => {
  await withServer(async (base, port) => {
    const dir = await globalDir({ search_url: `${base}/ddg/html/?q={query}`, format: "ddg-html" });
    const tool = createWebSearchTool({ globalDir: dir });
    const out = await tool.run({ query: "local page" }, toolContext(dir, "search-ddg"));
    const site = `http://site.test:${port}`;
    assert.equal(
      out,
      `1. Local page\n   ${site}/page.html\n   A page & its snippet\n\n` +
        `2. Data\n   ${site}/data.json\n\nRead a result with web_fetch id=<number>.`,
    );
    const fetch = createWebFetchTool({ allowHosts: ["site.test"], resolve });
    const page = await fetch.run({ id: 2 }, toolContext(dir, "search-ddg"));
    assert.deepEqual(page, {
      content: `URL: ${site}/data.json (application/json)\nCharacters 0-14 of 14\n\n{"answer": 42}`,
    });
    await Deno.remove(dir, { recursive: true });
  }, routes);
});

Deno.test("web_search reads a SearXNG JSON backend and web_fetch id follows it", async () => {
  await withServer(async (base, port) => {
    const dir = await globalDir({ search_url: `${base}/searx/search?q={query}&format=json` });
    const outcome = await searchWeb("deno fetch", {
      worktree: dir,
      session: "search-searx",
      signal: new AbortController().signal,
    }, { globalDir: dir });
    const site = `http://site.test:${port}`;
    assert.deepEqual(outcome, {
      content: `1. Local page\n   ${site}/page.html\n   About deno fetch\n\n` +
        "Read a result with web_fetch id=<number>.",
      results: [{ title: "Local page", url: `${site}/page.html`, snippet: "About deno fetch" }],
    });
    const fetch = createWebFetchTool({ allowHosts: ["site.test"], resolve });
    const page = await fetch.run({ id: 1 }, toolContext(dir, "search-searx"));
    assert.match(typeof page === "string" ? page : page.content, /^URL: .*\nTitle: Local page\n/);
    await Deno.remove(dir, { recursive: true });
  }, routes);
});

Deno.test("web_search reports a bot check instead of pretending there were no results", async () => {
  await withServer(async (base) => {
    const dir = await globalDir({ search_url: `${base}/ddg/html/?q={query}`, format: "ddg-html" });
    const out = await createWebSearchTool({ globalDir: dir }).run(
      { query: "blocked" },
      toolContext(dir, "search-blocked"),
    );
    assert.deepEqual(out, {
      content: "Error: Search failed: 127.0.0.1 answered with a bot check instead of results; " +
        "configure another backend in ~/.config/svc/web.json",
      ok: false,
    });
    await Deno.remove(dir, { recursive: true });
  }, routes);
});

Deno.test("a trusted worktree's web.json may not point web_search at a private host", async () => {
  const worktree = await Deno.makeTempDir();
  await Deno.mkdir(join(worktree, ".svc"));
  const local = join(worktree, ".svc", "web.json");
  await Deno.writeTextFile(
    local,
    JSON.stringify({ search_url: "http://169.254.169.254/?q={query}" }),
  );
  assert.deepEqual(await loadBackend(worktree, null, true), {
    ok: false,
    error: `${local} points web_search at a private or local host (169.254.169.254); ` +
      "set such a backend in ~/.config/svc/web.json instead",
  });
  await Deno.writeTextFile(local, JSON.stringify({ search_url: "https://search.test/?s=x" }));
  assert.deepEqual(await loadBackend(worktree, null, true), {
    ok: false,
    error: `Invalid ${local}: search_url must contain {query}`,
  });
  await Deno.writeTextFile(local, "{}");
  assert.deepEqual(await loadBackend(worktree, null, true), {
    ok: true,
    backend: {
      name: "duckduckgo",
      template: "https://html.duckduckgo.com/html/?q={query}",
      format: "ddg-html",
      trusted: false,
    },
  });
  await Deno.remove(worktree, { recursive: true });
});

Deno.test("an untrusted worktree's web.json is not read, and the search says so", async () => {
  const worktree = await Deno.makeTempDir();
  await Deno.mkdir(join(worktree, ".svc"));
  const local = join(worktree, ".svc", "web.json");
  await Deno.writeTextFile(local, JSON.stringify({ search_url: "https://evil.test/?q={query}" }));
  assert.deepEqual(await loadBackend(worktree, null), {
    ok: true,
    backend: DEFAULT_BACKEND,
    note: `${local} was not used: this worktree is not trusted (svc trust)`,
  });
  // A FIFO in its place is not even opened, trusted or not.
  await Deno.remove(local);
  await new Deno.Command("mkfifo", { args: [local] }).output();
  assert.equal((await loadBackend(worktree, null)).ok, true);
  assert.deepEqual(await loadBackend(worktree, null, true), {
    ok: false,
    error: `${local} is not a regular file`,
  });
  await Deno.remove(worktree, { recursive: true });
});

Deno.test("parseDdgHtml skips ads and unwraps redirect links", () => {
  assert.deepEqual(parseDdgHtml(ddgPage("https://x.test")), [
    { title: "Local page", url: "https://x.test/page.html", snippet: "A page & its snippet" },
    { title: "Data", url: "https://x.test/data.json", snippet: "" },
  ]);
});
