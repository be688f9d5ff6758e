/**
 * The filtering proxy of one sandboxed command (docs/security.md): an HTTP forward proxy (absolute
 * `http://` requests) and CONNECT tunnels (https and any other TLS), on a Unix socket the sandbox
 * reaches through its bridge (bridge.ts). A request passes only when its target host is allowed
 * (domains.ts); the target is resolved and dialled here, on the host. Every connection is bounded:
 * a deadline for the request head, an idle timeout once relaying, and a cap on open connections.
 * It lives in svc's own process for as long as the command runs.
 */
import { type DomainLists, hostVerdict } from "./domains.ts";
import { parseProxyRequest, type ProxyRequest } from "./proxy_request.ts";
import { connectHead, proxiedHead, type Upstream, upstreamFor } from "./upstream.ts";

/** Options of `startNetworkProxy`. */
export interface ProxyOptions extends DomainLists {
  /** Milliseconds a client has to send its request head. */
  headMs?: number;
  /** Milliseconds a connection may stay without a byte in either direction. */
  idleMs?: number;
  /** Milliseconds to resolve and connect to the target. */
  dialMs?: number;
  /** Connections open at once; more are answered 503. */
  maxConnections?: number;
  /** Where svc's own proxy settings come from (upstream.ts); default svc's environment. */
  env?: Record<string, string>;
}

/** A running proxy. */
export interface NetworkProxy {
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const HEAD_LIMIT = 32 * 1024;
const CHUNK = 64 * 1024;
const DEFAULTS = { headMs: 10_000, idleMs: 120_000, dialMs: 10_000, maxConnections: 64 };
const DRAIN_MS = 1000;
const DRAIN_LIMIT = 1024 * 1024;
const END_OF_HEAD = new Uint8Array([13, 10, 13, 10]);

/** Starts a proxy listening on the Unix socket `path` (which must not exist). */
export function startNetworkProxy(path: string, options: ProxyOptions): NetworkProxy {
  const settings: Settings = {
    headMs: options.headMs ?? DEFAULTS.headMs,
    idleMs: options.idleMs ?? DEFAULTS.idleMs,
    dialMs: options.dialMs ?? DEFAULTS.dialMs,
    maxConnections: options.maxConnections ?? DEFAULTS.maxConnections,
    allowed: options.allowed,
    denied: options.denied,
    env: options.env ?? Deno.env.toObject(),
  };
  const listener = Deno.listen({ transport: "unix", path });
  const open = new Set<Deno.Conn>();
  let clients = 0;
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        if (clients >= settings.maxConnections) {
          reply(conn, 503, "svc sandbox proxy: too many connections").finally(() => close(conn));
          continue;
        }
        open.add(conn);
        clients++;
        serveConnection(conn, settings, open).catch(() => {}).finally(() => {
          close(conn);
          open.delete(conn);
          clients--;
        });
      }
    } catch {
      // the listener was closed
    }
  })();
  return {
    async close() {
      try {
        listener.close();
      } catch {
        // already closed
      }
      for (const conn of open) close(conn);
      await serving;
    },
  };
}

type Settings = typeof DEFAULTS & DomainLists & { env: Record<string, string> };

async function serveConnection(
  conn: Deno.Conn,
  settings: Settings,
  open: Set<Deno.Conn>,
): Promise<void> {
  const received = await readHead(conn, settings.headMs);
  if (typeof received === "string") return reply(conn, 400, `svc sandbox proxy: ${received}`);
  if ("timedOut" in received) {
    return reply(conn, 408, `svc sandbox proxy: no request head within ${settings.headMs} ms`);
  }
  const parsed = parseProxyRequest(received.head);
  if (!parsed.ok) return reply(conn, parsed.status, parsed.message);
  const { request } = parsed;
  const verdict = hostVerdict(request.host, settings);
  if (!verdict.ok) return reply(conn, 403, verdict.reason);
  const via = upstreamFor(request, settings.env);
  let upstream: Deno.Conn;
  try {
    upstream = via
      ? await dialVia(via, request, settings)
      : await dial(request.host, request.port, settings.dialMs);
  } catch (err) {
    const where = `${request.host}:${request.port}`;
    return reply(conn, 502, `svc sandbox proxy: cannot reach ${where}: ${(err as Error).message}`);
  }
  open.add(upstream);
  try {
    if (request.tunnel) {
      await writeAll(conn, new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
    } else {
      const head = via
        ? proxiedHead({ head: request.head!, uri: request.uri! }, via)
        : request.head!;
      await writeAll(upstream, new TextEncoder().encode(head));
    }
    if (received.rest.length) await writeAll(upstream, received.rest);
    await relay(conn, upstream, settings.idleMs);
  } finally {
    close(upstream);
    open.delete(upstream);
  }
}

/**
 * Reads up to the blank line that ends a request head, within HEAD_LIMIT bytes; `timedOut` when
 * it has not arrived within `ms`.
 */
async function readHead(
  conn: Deno.Conn,
  ms: number,
): Promise<{ head: string; rest: Uint8Array } | string | { timedOut: true }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), ms);
  });
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(4096);
  try {
    for (;;) {
      const n = await Promise.race([conn.read(chunk).catch(() => null), deadline]);
      if (n === null) return "the request head was cut short";
      if (typeof n !== "number") return n;
      const next = new Uint8Array(buffer.length + n);
      next.set(buffer);
      next.set(chunk.subarray(0, n), buffer.length);
      buffer = next;
      const end = indexOf(buffer, END_OF_HEAD);
      if (end >= 0) {
        const head = new TextDecoder("latin1").decode(buffer.subarray(0, end));
        return { head, rest: buffer.slice(end + END_OF_HEAD.length) };
      }
      if (buffer.length > HEAD_LIMIT) return `the request head is longer than ${HEAD_LIMIT} bytes`;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects through svc's own proxy: for a tunnel, a CONNECT that must answer 2xx within the dial
 * time (its answer is consumed, never relayed); for a plain request, the proxy itself.
 */
async function dialVia(via: Upstream, request: ProxyRequest, settings: Settings) {
  const conn = await dial(via.hostname, via.port, settings.dialMs);
  if (!request.tunnel) return conn;
  try {
    await writeAll(conn, new TextEncoder().encode(connectHead(request, via)));
    const answer = await readHead(conn, settings.dialMs);
    if (typeof answer === "string") throw new Error(`the proxy ${via.hostname}: ${answer}`);
    if ("timedOut" in answer) throw new Error(`the proxy ${via.hostname} did not answer`);
    const status = answer.head.split("\r\n")[0];
    if (!/^HTTP\/1\.[01] 2\d\d /.test(`${status} `)) {
      throw new Error(`the proxy ${via.hostname} answered ${status.slice(0, 80)}`);
    }
    // Nothing may follow a CONNECT answer before the client speaks.
    if (answer.rest.length) throw new Error(`the proxy ${via.hostname} sent data early`);
    return conn;
  } catch (err) {
    close(conn);
    throw err;
  }
}

/** Connects to the target, resolving its name on the host, within `ms`. */
function dial(host: string, port: number, ms: number): Promise<Deno.Conn> {
  const connecting = Deno.connect({ hostname: host, port, transport: "tcp" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      connecting.then(close, () => {});
      reject(new Error(`no connection within ${ms} ms`));
    }, ms);
  });
  return Promise.race([connecting, timeout]).finally(() => clearTimeout(timer));
}

/** Copies both ways until both ends finished, or nothing moved for `idleMs`. */
async function relay(a: Deno.Conn, b: Deno.Conn, idleMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      close(a);
      close(b);
    }, idleMs);
  };
  idle();
  const pump = async (from: Deno.Conn, to: Deno.Conn) => {
    const buffer = new Uint8Array(CHUNK);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        idle();
        await writeAll(to, buffer.subarray(0, n));
      }
      await to.closeWrite();
    } catch {
      close(a);
      close(b);
    }
  };
  try {
    await Promise.all([pump(a, b), pump(b, a)]);
  } finally {
    clearTimeout(timer);
  }
}

async function reply(conn: Deno.Conn, status: number, message: string): Promise<void> {
  const reason = {
    400: "Bad Request",
    403: "Forbidden",
    408: "Request Timeout",
    502: "Bad Gateway",
  }[status] ??
    "Service Unavailable";
  const body = new TextEncoder().encode(`${message}\n`);
  const head = `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  try {
    await writeAll(conn, new TextEncoder().encode(head));
    await writeAll(conn, body);
    await conn.closeWrite();
    await drain(conn);
  } catch {
    // the client is gone
  }
}

/**
 * Reads what a refused client is still sending (a request body), briefly and up to a limit:
 * closing a socket with unread data resets it, and the client would lose the answer.
 */
async function drain(conn: Deno.Conn): Promise<void> {
  const timer = setTimeout(() => close(conn), DRAIN_MS);
  const buffer = new Uint8Array(CHUNK);
  try {
    for (let read = 0; read < DRAIN_LIMIT;) {
      const n = await conn.read(buffer);
      if (n === null) return;
      read += n;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

function close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
