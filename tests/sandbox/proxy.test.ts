/**
 * The sandbox's filtering proxy on its own: host spellings and domain patterns, the strict request
 * reader, and the bounds of a real proxy on a Unix socket (head deadline, idle timeout, cap).
 */
import assert from "node:assert/strict";
import { hostMatches, hostVerdict, standardHost } from "../../src/sandbox/domains.ts";
import { parseProxyRequest } from "../../src/sandbox/proxy_request.ts";
import { upstreamFor } from "../../src/sandbox/upstream.ts";
import { startNetworkProxy } from "../../src/sandbox/proxy.ts";

Deno.test("hosts in a non-standard spelling are refused, standard ones normalized", () => {
  for (const host of ["2130706433", "127.1", "0x7f.0.0.1", "0177.0.0.1", "1.2.3.256", "a..b", ""]) {
    assert.equal(standardHost(host), undefined, host);
  }
  assert.equal(standardHost("Example.COM."), "example.com");
  assert.equal(standardHost("127.0.0.1"), "127.0.0.1");
  assert.equal(standardHost("[::1]"), "::1");
  assert.equal(standardHost("[0:0::1]"), "::1");
});

Deno.test("*.domain matches subdomains but not the domain, * matches any, denied wins", () => {
  assert.ok(hostMatches("a.example.com", "*.example.com"));
  assert.ok(hostMatches("a.b.example.com", "*.Example.com"));
  assert.ok(!hostMatches("example.com", "*.example.com"));
  assert.ok(!hostMatches("badexample.com", "*.example.com"));
  assert.ok(hostMatches("anything.test", "*"));
  assert.ok(hostVerdict("a.example.com", { allowed: ["*"], denied: [] }).ok);
  const denied = hostVerdict("a.example.com", { allowed: ["*"], denied: ["*.example.com"] });
  assert.ok(!denied.ok && /deniedDomains/.test(denied.reason));
  const unlisted = hostVerdict("other.test", { allowed: ["example.com"], denied: [] });
  assert.ok(!unlisted.ok && /allowedDomains/.test(unlisted.reason));
});

Deno.test("a forwarded request goes on in origin form without proxy headers", () => {
  const parsed = parseProxyRequest(
    "GET http://Example.com:8080/a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\n" +
      "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nAccept: */*",
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.request.host, "example.com");
  assert.equal(parsed.request.port, 8080);
  assert.equal(
    parsed.request.head,
    "GET /a?b=1 HTTP/1.1\r\nHost: Example.com:8080\r\naccept: */*\r\nConnection: close\r\n\r\n",
  );
  const tunnel = parseProxyRequest("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443");
  assert.ok(tunnel.ok && tunnel.request.tunnel && tunnel.request.port === 443);
});

Deno.test("non-standard request forms are refused with 400", () => {
  const heads = [
    "GET / HTTP/1.1\r\nHost: example.com", // origin form: not a proxy request
    "GET https://example.com/ HTTP/1.1", // https in the clear
    "GET http://user:pw@example.com/ HTTP/1.1", // credentials
    "GET http://example.com/ HTTP/2.0",
    "GET  http://example.com/ HTTP/1.1",
    "CONNECT example.com HTTP/1.1", // no port
    "CONNECT http://example.com:443 HTTP/1.1",
    "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nHost: example.com",
    "GET http://example.com/ HTTP/1.1\r\nHost: other.com",
    "GET http://example.com/ HTTP/1.1\r\nHost: example.com:81",
    "GET http://example.com/ HTTP/1.1\r\n folded: header",
    "GET http://example.com/ HTTP/1.1\nHost: example.com",
    "POST http://example.com/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked",
    "POST http://example.com/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2",
    "GET http://2130706433/ HTTP/1.1",
    "GET http://example.com/\u00e9 HTTP/1.1",
  ];
  for (const head of heads) {
    const parsed = parseProxyRequest(head);
    assert.ok(!parsed.ok && parsed.status === 400, JSON.stringify(head));
  }
});

/** A proxy on a Unix socket in a temp folder, allowing 127.0.0.1, with short bounds. */
async function proxyBox(
  options: {
    headMs?: number;
    idleMs?: number;
    maxConnections?: number;
    allowed?: string[];
    env?: Record<string, string>;
  },
) {
  const dir = await Deno.makeTempDir({ prefix: "svc-proxy-test-" });
  const path = `${dir}/proxy.sock`;
  const proxy = startNetworkProxy(path, {
    allowed: ["127.0.0.1"],
    denied: [],
    env: {},
    ...options,
  });
  return {
    connect: () => Deno.connect({ transport: "unix", path }),
    async [Symbol.asyncDispose]() {
      await proxy.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function readAll(conn: Deno.Conn): Promise<string> {
  const chunks: string[] = [];
  const buffer = new Uint8Array(4096);
  const decoder = new TextDecoder();
  for (;;) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return chunks.join("");
    chunks.push(decoder.decode(buffer.subarray(0, n)));
  }
}

Deno.test("a client that never finishes its request head is answered 408 and closed", async () => {
  await using box = await proxyBox({ headMs: 150 });
  const conn = await box.connect();
  await conn.write(new TextEncoder().encode("GET http://127.0.0.1/ HTTP/1.1\r\n"));
  const answer = await readAll(conn);
  conn.close();
  assert.match(answer, /^HTTP\/1\.1 408 /);
});

Deno.test("a tunnel with no traffic is closed after the idle timeout", async () => {
  const target = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = target.accept();
  await using box = await proxyBox({ idleMs: 200 });
  const conn = await box.connect();
  const port = target.addr.port;
  await conn.write(new TextEncoder().encode(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`));
  const started = performance.now();
  const answer = await readAll(conn); // returns once the proxy closes the idle tunnel
  assert.match(answer, /^HTTP\/1\.1 200 /);
  assert.ok(performance.now() - started < 2000);
  conn.close();
  (await accepted).close();
  target.close();
});

Deno.test("connections past the cap are answered 503", async () => {
  await using box = await proxyBox({ maxConnections: 1, headMs: 1000 });
  const first = await box.connect();
  await first.write(new TextEncoder().encode("G")); // holds its slot while sending its head
  const second = await box.connect();
  assert.match(await readAll(second), /^HTTP\/1\.1 503 /);
  second.close();
  first.close();
});

/**
 * A stand-in for a corporate proxy on loopback: records each request head it gets, answers a
 * CONNECT with 200 and then one HTTP response, and a plain request with one response.
 */
function fakeUpstream() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const done = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(8192);
      let text = "";
      while (!text.includes("\r\n\r\n")) {
        const n = await conn.read(buffer);
        if (n === null) break;
        text += new TextDecoder().decode(buffer.subarray(0, n));
      }
      heads.push(text.split("\r\n\r\n")[0]);
      const ok = "HTTP/1.1 200 OK\r\ncontent-length: 12\r\nconnection: close\r\n\r\nvia upstream";
      if (text.startsWith("CONNECT")) {
        await conn.write(new TextEncoder().encode("HTTP/1.1 200 Connection established\r\n\r\n"));
        await conn.read(buffer); // the tunnelled request
      }
      await conn.write(new TextEncoder().encode(ok));
      conn.close();
    }
  })().catch(() => {});
  return {
    url: `http://user:p%40ss@127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    close: async () => {
      listener.close();
      await done;
    },
  };
}

Deno.test("behind svc's own proxy, allowed hosts are reached through it: CONNECT tunnels and absolute-form requests, with its credentials", async () => {
  const upstream = fakeUpstream();
  try {
    await using box = await proxyBox({
      allowed: ["registry.example.test"],
      env: { HTTPS_PROXY: upstream.url, http_proxy: upstream.url, NO_PROXY: "localhost" },
    });
    const tunnel = await box.connect();
    await tunnel.write(
      new TextEncoder().encode(
        "CONNECT registry.example.test:443 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n",
      ),
    );
    const tunnelled = await readAll(tunnel);
    tunnel.close();
    assert.match(
      tunnelled,
      /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK.*via upstream$/s,
    );
    const plain = await box.connect();
    await plain.write(
      new TextEncoder().encode(
        "GET http://registry.example.test/pkg HTTP/1.1\r\nHost: registry.example.test\r\n\r\n",
      ),
    );
    assert.match(await readAll(plain), /via upstream$/);
    plain.close();
    const auth = `Proxy-Authorization: Basic ${btoa("user:p@ss")}`;
    assert.deepEqual(upstream.heads, [
      `CONNECT registry.example.test:443 HTTP/1.1\r\nHost: registry.example.test:443\r\n${auth}`,
      `GET http://registry.example.test/pkg HTTP/1.1\r\n${auth}\r\nHost: registry.example.test\r\nConnection: close`,
    ]);
    // A host the lists refuse never reaches the upstream proxy.
    const refused = await box.connect();
    await refused.write(new TextEncoder().encode("CONNECT other.test:443 HTTP/1.1\r\n\r\n"));
    assert.match(await readAll(refused), /^HTTP\/1\.1 403 /);
    refused.close();
    assert.equal(upstream.heads.length, 2);
  } finally {
    await upstream.close();
  }
});

Deno.test("loopback, NO_PROXY names and suffixes, and * send a host directly instead of through svc's proxy", () => {
  const env = { HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "internal.test,.corp.test" };
  assert.equal(upstreamFor({ host: "a.internal.test", tunnel: true }, env), undefined);
  assert.equal(upstreamFor({ host: "x.corp.test", tunnel: true }, env), undefined);
  assert.deepEqual(upstreamFor({ host: "npmjs.org", tunnel: true }, env), {
    hostname: "proxy",
    port: 3128,
  });
  assert.equal(upstreamFor({ host: "npmjs.org", tunnel: false }, env), undefined);
  assert.equal(upstreamFor({ host: "127.0.0.1", tunnel: true }, env), undefined);
  assert.equal(
    upstreamFor({ host: "npmjs.org", tunnel: true }, { ...env, NO_PROXY: "*" }),
    undefined,
  );
  assert.equal(
    upstreamFor({ host: "npmjs.org", tunnel: true }, { HTTPS_PROXY: "socks5://p:1" }),
    undefined,
  );
});
