import assert from "node:assert/strict";
import { fetchPage, type FetchResult } from "../src/fetch_page.ts";
import { withServer } from "./local_server.ts";

const local = { allowHosts: ["127.0.0.1"] };

function page(result: FetchResult) {
  assert.ok(result.ok, result.ok ? "" : result.error);
  return result.page;
}

Deno.test("fetchPage reads an HTML page and keeps the markup for conversion", async () => {
  await withServer(async (base) => {
    const got = page(await fetchPage(`${base}/page.html`, local));
    assert.deepEqual({ ...got, body: got.body.slice(0, 37) }, {
      url: `${base}/page.html`,
      mediaType: "text/html",
      kind: "html",
      body: "<html><head><title>Local page</title>",
      truncated: false,
    });
  });
});

Deno.test("fetchPage passes JSON through as text", async () => {
  await withServer(async (base) => {
    assert.deepEqual(await fetchPage(`${base}/data.json`, local), {
      ok: true,
      page: {
        url: `${base}/data.json`,
        mediaType: "application/json",
        kind: "text",
        body: '{"answer": 42}',
        truncated: false,
      },
    });
  });
});

Deno.test("fetchPage refuses binary content by type and by sniffing", async () => {
  await withServer(async (base) => {
    assert.deepEqual(await fetchPage(`${base}/image.png`, local), {
      ok: false,
      error:
        `${base}/image.png is binary content (image/png); web_fetch reads only HTML, text and JSON`,
    });
    assert.deepEqual(await fetchPage(`${base}/blob`, local), {
      ok: false,
      error:
        `${base}/blob is binary content (application/octet-stream); web_fetch reads only HTML, text and JSON`,
    });
    assert.equal(page(await fetchPage(`${base}/notes`, local)).body, "plain notes without a type");
  });
});

Deno.test("fetchPage decompresses gzip and decodes a declared charset", async () => {
  await withServer(async (base) => {
    assert.equal(page(await fetchPage(`${base}/gzip`, local)).body, "<p>compressed page</p>");
    assert.equal(page(await fetchPage(`${base}/latin1`, local)).body, "café");
  });
});

Deno.test("fetchPage stops a huge body at the byte cap", async () => {
  await withServer(async (base) => {
    const got = page(await fetchPage(`${base}/huge.html`, local));
    assert.deepEqual([got.body.length, got.truncated], [2 * 1024 * 1024, true]);
  });
});

Deno.test("fetchPage applies the byte cap after decompression (gzip bomb)", async () => {
  await withServer(async (base) => {
    const got = page(await fetchPage(`${base}/bomb`, { ...local, maxBytes: 1024 * 1024 }));
    assert.deepEqual([got.body.length, got.truncated], [1024 * 1024, true]);
  });
});

Deno.test("fetchPage stops an endless body at the cap in bounded time", async () => {
  await withServer(async (base) => {
    const started = Date.now();
    const got = page(await fetchPage(`${base}/endless`, { ...local, maxBytes: 300_000 }));
    assert.deepEqual([got.body.length, got.truncated], [300_000, true]);
    assert.ok(Date.now() - started < 3000);
  });
});

Deno.test("fetchPage gives up on a slow body at the time cap", async () => {
  await withServer(async (base) => {
    const started = Date.now();
    const result = await fetchPage(`${base}/slow`, { ...local, timeoutMs: 200 });
    assert.deepEqual(result, { ok: false, error: `Fetching ${base}/slow stopped after 0.2 s` });
    assert.ok(Date.now() - started < 2000);
  });
});

Deno.test("fetchPage honours the caller's abort signal", async () => {
  await withServer(async (base) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await fetchPage(`${base}/slow`, { ...local, signal: controller.signal });
    assert.deepEqual(result, { ok: false, error: "Fetch cancelled" });
  });
});

Deno.test("fetchPage follows redirects up to the limit and stops loops", async () => {
  await withServer(async (base) => {
    assert.equal(page(await fetchPage(`${base}/chain/4`, local)).url, `${base}/data.json`);
    assert.deepEqual(await fetchPage(`${base}/chain/5`, local), {
      ok: false,
      error: `Stopped after 5 redirects at ${base}/chain/0`,
    });
    assert.deepEqual(await fetchPage(`${base}/loop`, local), {
      ok: false,
      error: `Stopped after 5 redirects at ${base}/loop`,
    });
  });
});

Deno.test("fetchPage refuses a redirect to a private address", async () => {
  await withServer(async (base, port) => {
    for (const to of ["http://10.0.0.7/admin", `http://localhost:${port}/data.json`]) {
      const result = await fetchPage(`${base}/redirect?to=${encodeURIComponent(to)}`, local);
      assert.equal(result.ok, false);
      assert.match(result.ok ? "" : result.error, new RegExp(`^Refused to fetch ${to}: `));
    }
  });
});

Deno.test("fetchPage re-checks a redirect to a public name that resolves inward", async () => {
  await withServer(async (base) => {
    const resolve = (host: string) =>
      Promise.resolve(host === "rebind.test" ? ["192.168.1.5"] : []);
    const to = "http://rebind.test/";
    const result = await fetchPage(`${base}/redirect?to=${to}`, { ...local, resolve });
    assert.deepEqual(result, {
      ok: false,
      error: "Refused to fetch http://rebind.test/: rebind.test resolves to a private address " +
        "(192.168.1.5); a public name that points inward is refused as possible DNS rebinding. " +
        "Loopback, private and link-local hosts are fetched only when given directly as url by " +
        "IP address or local name, with the user's approval",
    });
  });
});

Deno.test("fetchPage pins the connection to the checked address and keeps the Host name", async () => {
  await withServer(async (_base, port) => {
    const resolve = () => Promise.resolve(["127.0.0.1"]);
    const options = { allowHosts: ["pinned.test"], resolve };
    const got = page(await fetchPage(`http://pinned.test:${port}/host`, options));
    assert.equal(got.body, `host=pinned.test:${port}`);
  });
});

Deno.test("fetchPage reports HTTP errors, refused schemes and bad URLs", async () => {
  await withServer(async (base) => {
    assert.deepEqual(await fetchPage(`${base}/missing`, local), {
      ok: false,
      error: `HTTP 404 Not Found from ${base}/missing`,
    });
  });
  assert.deepEqual(await fetchPage("file:///etc/passwd"), {
    ok: false,
    error: "Only http and https URLs can be fetched, not file:",
  });
  assert.deepEqual(await fetchPage("not a url"), { ok: false, error: "Invalid URL: not a url" });
});

Deno.test("fetchPage pins https too, keeping SNI and the certificate check on the name", async () => {
  const fixture = (name: string) =>
    Deno.readTextFile(new URL(`./fixtures/${name}`, import.meta.url));
  const tls = { cert: await fixture("pinned_test.crt"), key: await fixture("pinned_test.key") };
  await withServer(
    async (_base, port) => {
      const options = {
        allowHosts: ["pinned.test", "other.test"],
        resolve: () => Promise.resolve(["127.0.0.1"]),
        caCerts: [tls.cert],
      };
      const got = page(await fetchPage(`https://pinned.test:${port}/host`, options));
      assert.equal(got.body, `host=pinned.test:${port}`);
      const other = await fetchPage(`https://other.test:${port}/host`, options);
      assert.equal(other.ok, false);
      assert.match(
        other.ok ? "" : other.error,
        /^Fetching https:\/\/other\.test:\d+\/host failed: .*altnames/,
      );
    },
    undefined,
    tls,
  );
});
