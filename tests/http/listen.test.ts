/** The socket side of `svc serve` (node:http through `listen`), with short limits, on loopback. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type ConnectionLimits, listen, LISTENER_CHECK_MS } from "../../src/http/mod.ts";
import { watchListener } from "../../src/http/listen.ts";
import { FakeClock } from "../_support/fake_clock.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A server over `handler` with `limits`, closed on dispose. */
async function serving(
  handler: (request: Request) => Promise<Response>,
  limits: Partial<ConnectionLimits> = {},
) {
  const server = await listen(handler, { hostname: "127.0.0.1", port: 0, limits });
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

const ok = () => Promise.resolve(Response.json({ status: "ok" }));

/** Sends raw bytes on a new connection; returns the connection. */
async function raw(port: number, text: string): Promise<Deno.Conn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(text));
  return conn;
}

/** Reads until the server closes `conn`; returns what it sent and after how many ms. */
async function untilClosed(conn: Deno.Conn, limitMs = 5000): Promise<[string, number]> {
  const start = performance.now();
  const buffer = new Uint8Array(4096);
  let text = "";
  const timer = setTimeout(() => conn.close(), limitMs);
  try {
    while (true) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) return [text, performance.now() - start];
      text += decoder.decode(buffer.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
}

Deno.test("a JSON reply goes out whole with its Content-Length; HEAD sends no body", async () => {
  await using s = await serving((request) =>
    Promise.resolve(
      request.method === "HEAD"
        ? new Response(null, { headers: { "content-type": "application/json" } })
        : Response.json({ path: new URL(request.url).pathname, host: request.headers.get("host") }),
    )
  );
  const [reply] = await untilClosed(
    await raw(s.server.port, "GET /a/b?c=1 HTTP/1.1\r\nHost: x.test\r\nConnection: close\r\n\r\n"),
  );
  assert.match(reply, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(reply, /\r\ncontent-length: 31\r\n/i);
  assert.ok(reply.endsWith('\r\n\r\n{"path":"/a/b","host":"x.test"}'), reply);
  const head = await fetch(s.url, { method: "HEAD" });
  assert.deepEqual([head.status, await head.text()], [200, ""]);
});

Deno.test("a request body streams in and a client that goes away aborts request.signal", async () => {
  let aborted!: () => void;
  const gone = new Promise<void>((resolve) => aborted = resolve);
  await using s = await serving(async (request) => {
    if (request.method === "POST") return Response.json({ got: await request.text() });
    request.signal.addEventListener("abort", () => aborted(), { once: true });
    await gone;
    return Response.json({ late: true });
  });
  const echo = await fetch(s.url, { method: "POST", body: "x".repeat(200_000) });
  assert.equal((await echo.json()).got.length, 200_000);
  const client = new AbortController();
  const pending = fetch(s.url, { signal: client.signal }).catch((err) => err.name);
  await new Promise((r) => setTimeout(r, 100));
  client.abort();
  assert.equal(await pending, "AbortError");
  await gone; // the handler saw the abort
});

Deno.test("an event stream reaches the client chunk by chunk", async () => {
  let next!: () => void;
  const second = new Promise<void>((resolve) => next = resolve);
  await using s = await serving(() => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode("event: message\ndata: 1\n\n"));
        await second;
        controller.enqueue(encoder.encode("event: message\ndata: 2\n\n"));
        controller.close();
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  });
  const res = await fetch(s.url);
  const reader = res.body!.getReader();
  assert.equal(decoder.decode((await reader.read()).value), "event: message\ndata: 1\n\n");
  next();
  assert.equal(decoder.decode((await reader.read()).value), "event: message\ndata: 2\n\n");
  assert.equal((await reader.read()).done, true);
});

Deno.test("an idle kept-alive connection is closed after the keep-alive timeout", async () => {
  await using s = await serving(ok, { keepAliveTimeoutMs: 300, headersTimeoutMs: 2000 });
  const conn = await raw(s.server.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  const [reply, ms] = await untilClosed(conn);
  assert.match(reply, /^HTTP\/1\.1 200 OK\r\n[\s\S]*keep-alive/i);
  assert.ok(ms >= 250 && ms < 1800, `closed after ${ms} ms`);
});

Deno.test("headers that never finish are cut off with 408 at the header timeout", async () => {
  await using s = await serving(ok, { headersTimeoutMs: 400, requestTimeoutMs: 2000 });
  const silent = await Deno.connect({ hostname: "127.0.0.1", port: s.server.port });
  const partial = await raw(s.server.port, "GET / HTTP/1.1\r\nHost: x\r\n");
  const [[none, silentMs], [timeout, partialMs]] = await Promise.all([
    untilClosed(silent),
    untilClosed(partial),
  ]);
  assert.ok(silentMs < 1500 && partialMs < 1500, `closed after ${silentMs} and ${partialMs} ms`);
  assert.match(timeout, /^HTTP\/1\.1 408 /);
  assert.ok(none === "" || none.startsWith("HTTP/1.1 408 "), none);
});

Deno.test("past the connection cap the oldest idle connection makes room", async () => {
  await using s = await serving(ok, { maxConnections: 8, headersTimeoutMs: 5000 });
  const idle = [];
  for (let i = 0; i < 8; i++) {
    idle.push(await Deno.connect({ hostname: "127.0.0.1", port: s.server.port }));
  }
  await new Promise((r) => setTimeout(r, 100));
  const res = await fetch(s.url);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const [, ms] = await untilClosed(idle[0], 2000);
  assert.ok(ms < 1000, "the oldest idle connection was not closed");
  assert.ok(s.server.connections() <= 8);
  for (const conn of idle.slice(1)) conn.close();
});

Deno.test("a reply sent before the request body was read closes the connection", async () => {
  await using s = await serving(() =>
    Promise.resolve(Response.json({ refused: true }, { status: 401 }))
  );
  const conn = await raw(
    s.server.port,
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
  );
  const [reply, ms] = await untilClosed(conn);
  assert.match(reply, /^HTTP\/1\.1 401 /);
  assert.ok(ms < 1500, `closed after ${ms} ms`);
});

Deno.test("the limits never cut a request that is being answered, however long it takes", async () => {
  await using s = await serving(
    async (request) => {
      await request.text();
      await new Promise((r) => setTimeout(r, 1500));
      return Response.json({ slow: true });
    },
    { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 },
  );
  const res = await fetch(s.url, { method: "POST", body: "{}" });
  assert.deepEqual([res.status, await res.json()], [200, { slow: true }]);
});

Deno.test("a listening socket that stopped accepting after EMFILE is replaced and answers again", async () => {
  // Without a cap, 80 connections under `ulimit -n 64` make an accept fail with EMFILE, after
  // which Deno's node:net never accepts again: clients would queue forever.
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      `ulimit -n 64 && exec '${Deno.execPath()}' run -A --quiet '${
        new URL("../_support/listen_child.ts", import.meta.url).pathname
      }' 100000`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  try {
    const port = Number((await lines.read()).value);
    const conns: Deno.Conn[] = [];
    for (let i = 0; i < 80; i++) conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    await new Promise((r) => setTimeout(r, 300));
    for (const conn of conns) conn.close();
    const since = performance.now();
    let status = 0;
    while (status !== 200 && performance.now() - since < 4 * LISTENER_CHECK_MS + 3000) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
        status = res.status;
        await res.body?.cancel();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.equal(status, 200, "the server never answered again");
  } finally {
    child.kill("SIGTERM");
    await lines.cancel();
  }
  assert.equal((await child.status).code, 0);
  assert.match(
    await stderr,
    /^error: the listening socket stopped accepting; listening again on port \d+$/m,
  );
});

Deno.test("on fake time, the watchdog replaces a listening socket that stopped handing over connections, on the same port, and says so", async () => {
  const clock = new FakeClock();
  const server = createServer((_request, response) => response.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  // What Deno's node:net does after a failed accept: no connection reaches the server any more.
  const handle = (server as unknown as {
    _handle: { onconnection: (status: number, client?: { close(): void }) => void };
  })._handle;
  handle.onconnection = (_status, client) => client?.close();
  const errors: string[] = [];
  const watch = watchListener(server, {
    hostname: "127.0.0.1",
    port,
    probe: { active: false },
    onError: (error) => errors.push(error.message),
    clock,
  });
  try {
    const checking = clock.waiting();
    await clock.advance(LISTENER_CHECK_MS); // nothing accepted for a period: it connects to itself
    await checking; // and waits for its own connection to be accepted...
    assert.deepEqual(errors, []);
    const listening = new Promise((resolve) => server.once("listening", resolve));
    await clock.advance(LISTENER_CHECK_MS); // ...which never is
    await listening;
    assert.deepEqual(errors, [
      `the listening socket stopped accepting; listening again on port ${port}`,
    ]);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    assert.deepEqual([response.status, await response.text()], [200, "ok"]);
  } finally {
    watch.stop();
    server.close();
    server.closeAllConnections();
  }
});

Deno.test("on fake time, the watchdog leaves a listening socket that still accepts alone", async () => {
  const clock = new FakeClock();
  const server = createServer((_request, response) => response.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const internals = server as unknown as { _handle: unknown };
  const handle = internals._handle;
  const probe = { active: false };
  const errors: string[] = [];
  const watch = watchListener(server, {
    hostname: "127.0.0.1",
    port,
    probe,
    onError: (error) => errors.push(error.message),
    clock,
  });
  try {
    const accepted = new Promise((resolve) => server.once("connection", resolve));
    await clock.advance(LISTENER_CHECK_MS); // nothing accepted for a period: it connects to itself
    await accepted;
    while (probe.active) await clock.advance(20); // until the check is over
    assert.deepEqual(errors, []);
    assert.equal(internals._handle, handle, "the same listening socket");
  } finally {
    watch.stop();
    server.close();
    server.closeAllConnections();
  }
});
