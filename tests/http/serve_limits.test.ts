/**
 * `svc serve` against clients that hold sockets: idle connections past the open-file limit and a
 * slowloris that sends its headers a byte at a time. Real sockets on loopback, a real process.
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startServe, writeConfig } from "./_serve.ts";
import { HEADERS_TIMEOUT_MS, LISTENER_CHECK_MS } from "../../src/http/mod.ts";

const encoder = new TextEncoder();

/** Resolves with the milliseconds until the server closed `conn` (a read ends or fails). */
async function closedAfter(conn: Deno.Conn, since: number): Promise<number> {
  const buffer = new Uint8Array(1024);
  while (true) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return performance.now() - since;
  }
}

async function health(url: string): Promise<number> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
  return res.status;
}

/**
 * /health's status, asking again for as long as the server may take to notice that its listening
 * socket stopped accepting and to replace it (when an accept hit the open-file limit).
 */
async function healthSoon(url: string): Promise<number> {
  const deadline = performance.now() + 4 * LISTENER_CHECK_MS + 3000;
  while (true) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      return res.status;
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

Deno.test("under ulimit -n 256, 400 idle connections neither crash svc serve nor stop /health", async () => {
  await using box = await sandbox();
  await writeConfig(box.worktree, "http://127.0.0.1:9");
  const served = await startServe([], { cwd: box.worktree, env: box.env, ulimitFiles: 256 });
  const conns: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 400; i++) {
      conns.push(await Deno.connect({ hostname: "127.0.0.1", port: served.port }));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await healthSoon(served.url), 200, served.stderr());
    const since = performance.now();
    const closed = await Promise.all(
      conns.map((c) =>
        Promise.race([
          closedAfter(c, since),
          new Promise<number>((r) => setTimeout(() => r(Infinity), 1000)),
        ])
      ),
    );
    // The cap (half the file limit) closed the oldest idle connections to make room.
    assert.ok(closed.filter(Number.isFinite).length >= 400 - 128, "connections were not capped");
  } finally {
    for (const c of conns) c.close();
  }
  assert.equal(await healthSoon(served.url), 200);
  assert.equal(await served.stop(), 0, served.stderr());
  // the one error it may report: an accept that hit the limit, and the socket it replaced
  const errors = served.stderr().split("\n").filter((line) => /error|too many/i.test(line));
  for (const line of errors) {
    assert.match(
      line,
      /^svc serve: error: the listening socket stopped accepting; listening again/,
    );
  }
});

Deno.test("a slowloris sending a header byte a second is cut off at the header timeout", async () => {
  await using box = await sandbox();
  await writeConfig(box.worktree, "http://127.0.0.1:9");
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const conns: Deno.Conn[] = [];
  try {
    const since = performance.now();
    for (let i = 0; i < 50; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: served.port });
      await conn.write(encoder.encode("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
      conns.push(conn);
    }
    const drip = setInterval(() => {
      for (const conn of conns) conn.write(encoder.encode("a")).catch(() => {});
    }, 1000);
    const deadline = HEADERS_TIMEOUT_MS + 4000;
    try {
      const closing = Promise.all(conns.map((c) =>
        Promise.race([
          closedAfter(c, since),
          new Promise<number>((r) => setTimeout(() => r(Infinity), deadline)),
        ])
      ));
      await new Promise((r) => setTimeout(r, 2000));
      assert.equal(await health(served.url), 200);
      const closed = await closing;
      assert.ok(Math.max(...closed) < deadline, `still open after ${deadline} ms`);
      assert.ok(Math.min(...closed) >= HEADERS_TIMEOUT_MS - 500, "closed before the timeout");
    } finally {
      clearInterval(drip);
    }
    assert.equal(await health(served.url), 200);
  } finally {
    for (const c of conns) c.close();
    assert.equal(await served.stop(), 0, served.stderr());
  }
});
