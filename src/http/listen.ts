import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { nodeHandler } from "./node_adapter.ts";
import { type Clock, realClock } from "../util/time.ts";

/** How long a client may take and how many it may hold: what keeps idle and slow clients out. */
export interface ConnectionLimits {
  /** Open connections at most; a new one past it closes the oldest idle one (or itself). */
  maxConnections: number;
  /** Headers must arrive within this many milliseconds, else 408 and the connection closes. */
  headersTimeoutMs: number;
  /** A kept-alive connection with no request for this long is closed. */
  keepAliveTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this many milliseconds. */
  requestTimeoutMs: number;
}

/** Default header deadline: 10 s, the same as a request body's. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Default idle keep-alive: 5 s (node's own default). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Default deadline for a whole request: headers plus the 10 s a body may take. */
export const REQUEST_TIMEOUT_MS = 20_000;
/**
 * How long the server may go without accepting a connection before it checks, by connecting to
 * itself, that its listening socket still accepts (see `watchListener`).
 */
export const LISTENER_CHECK_MS = 1_000;

/**
 * The default connection cap: half the open-file limit, between 16 and 1024, so sockets can never
 * take every descriptor (files, pipes and child processes need the rest). The limit comes from
 * /proc/self/limits, which Deno allows only with every permission; under svc's own permission set
 * from the shell's `ulimit -n`; without either, 256.
 */
export function defaultMaxConnections(): number {
  const limit = procOpenFileLimit() ?? shellOpenFileLimit() ?? 512;
  return Math.max(16, Math.min(1024, Math.floor(limit / 2)));
}

function procOpenFileLimit(): number | undefined {
  try {
    const line = Deno.readTextFileSync("/proc/self/limits").split("\n")
      .find((l) => l.startsWith("Max open files"));
    return positive(line?.split(/\s{2,}/)[1]);
  } catch {
    return undefined; // no /proc, or not allowed
  }
}

function shellOpenFileLimit(): number | undefined {
  if (Deno.build.os === "windows") return undefined;
  try {
    const out = new Deno.Command("sh", { args: ["-c", "ulimit -n"], stdin: "null", stderr: "null" })
      .outputSync();
    return out.success ? positive(new TextDecoder().decode(out.stdout).trim()) : undefined;
  } catch {
    return undefined;
  }
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The default limits, with the cap from the open-file limit. */
export function defaultLimits(): ConnectionLimits {
  return {
    maxConnections: defaultMaxConnections(),
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  };
}

/** A listening server. */
export interface Listener {
  /** The bound port (`port: 0` resolved). */
  port: number;
  /** Open connections now. */
  connections(): number;
  /** Stops accepting, closes idle connections and resolves once the others have finished. */
  shutdown(): Promise<void>;
  /** Resolves when the server has closed. */
  finished: Promise<void>;
}

/**
 * Serves `handler` on `hostname:port` with node:http, which, unlike `Deno.serve`, times out
 * header reads (slowloris) and idle keep-alive connections and lets svc cap connections. An
 * accept or client error is reported and never ends the process. Rejects when it cannot listen.
 */
export async function listen(
  handler: (request: Request) => Promise<Response>,
  options: {
    hostname: string;
    port: number;
    limits?: Partial<ConnectionLimits>;
    onError?: (error: Error) => void;
    /** The listener watchdog's clock (real by default). */
    clock?: Clock;
  },
): Promise<Listener> {
  const limits = { ...defaultLimits(), ...options.limits };
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // node checks the two deadlines in a sweep; its default of 30 s would let them run late
    connectionsCheckingInterval: Math.min(1000, Math.ceil(limits.headersTimeoutMs / 4)),
  });
  const probe = { active: false };
  const open = trackConnections(server, limits.maxConnections, () => probe.active);
  server.on("clientError", (_err: Error, socket: Socket) => {
    const code = (_err as { code?: string }).code;
    const status = code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : "400 Bad Request";
    if (socket.writable && !(socket as { _httpMessage?: unknown })._httpMessage) {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroySoon?.();
  });
  let reported = 0;
  server.on("error", (err: Error) => {
    // accept failures (EMFILE, ECONNABORTED) must not end the process; say so once a minute
    if (Date.now() - reported > 60_000) {
      reported = Date.now();
      options.onError?.(new Error(`accepting a connection failed: ${err.message}`));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const shown = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  server.on("request", nodeHandler(handler, `http://${shown}:${port}`));
  const finished = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const watch = watchListener(server, {
    hostname: options.hostname,
    port,
    probe,
    onError: options.onError,
    clock: options.clock,
  });
  return {
    port,
    connections: () => open.size,
    shutdown() {
      watch.stop();
      server.close();
      server.closeIdleConnections();
      return finished;
    },
    finished,
  };
}

/**
 * Keeps at most `max` connections: a connection past the cap closes the oldest one without a
 * request in progress (idle, or still sending its headers), or itself when every other one is
 * serving a request; one more while `probing()`. Returns the open sockets, oldest first.
 */
function trackConnections(
  server: Server,
  max: number,
  probing: () => boolean,
): Map<Socket, { busy: number }> {
  const open = new Map<Socket, { busy: number }>();
  server.on("connection", (socket: Socket) => {
    open.set(socket, { busy: 0 });
    socket.once("close", () => open.delete(socket));
    // the listener check's own connection (see `watchListener`) never costs a client its place
    if (open.size <= max + (probing() ? 1 : 0)) return;
    for (const [other, state] of open) {
      if (other !== socket && state.busy === 0) {
        other.destroy();
        open.delete(other);
        return;
      }
    }
    socket.destroy();
    open.delete(socket);
  });
  server.on("request", (req, res) => {
    const state = open.get(req.socket as Socket);
    if (!state) return;
    state.busy++;
    res.once("close", () => state.busy--);
  });
  return open;
}

/**
 * Keeps the listening socket alive. Deno's node:net (2.9) stops accepting for good when an accept
 * fails (EMFILE while the open-file limit is reached, say), without an error event: every later
 * client would wait in the kernel's queue forever. So when no connection has arrived for
 * `LISTENER_CHECK_MS`, the server connects to itself; if that connection is not accepted within
 * as long again (or is refused), the listening socket is replaced by a new one on the same port.
 * Clients queued on the dead socket are reset; existing connections are not touched.
 * `probe.active` is true while the check's own connection is open.
 */
export function watchListener(
  server: Server,
  options: {
    hostname: string;
    port: number;
    probe: { active: boolean };
    onError?: (error: Error) => void;
    clock?: Clock;
  },
): { stop(): void } {
  const { hostname, port, probe, onError, clock = realClock } = options;
  // monotonic time, not the epoch: a wall-clock step back would silence the watchdog that long
  let lastAccept = clock.monotonic();
  let stopped = false;
  server.on("connection", () => lastAccept = clock.monotonic());
  const target = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  const check = async () => {
    if (stopped || probe.active || clock.monotonic() - lastAccept < LISTENER_CHECK_MS) return;
    probe.active = true;
    const since = clock.monotonic();
    let conn: Deno.Conn | undefined;
    try {
      conn = await Deno.connect({ hostname: target, port });
    } catch (err) {
      probe.active = false;
      // out of descriptors ourselves: nothing to learn now, try again at the next check
      if (!(err instanceof Deno.errors.ConnectionRefused)) return;
    }
    if (conn) {
      const deadline = since + LISTENER_CHECK_MS;
      while (!stopped && lastAccept < since && clock.monotonic() < deadline) {
        await clock.sleep(20, undefined, "listener-check");
      }
      conn.close();
      probe.active = false;
      if (stopped || lastAccept >= since) return;
    }
    relisten(server, hostname, port, onError);
  };
  const stopTimer = clock.every(LISTENER_CHECK_MS, () => void check());
  return {
    stop() {
      stopped = true;
      stopTimer();
    },
  };
}

/** Closes the server's listening socket (not its connections) and listens again on `port`. */
function relisten(
  server: Server,
  hostname: string,
  port: number,
  onError?: (error: Error) => void,
): void {
  // node's Server has no public way to replace its listening socket alone: close() would also
  // close idle connections, stop the timeout sweep and end the server once drained.
  const internals = server as unknown as { _handle: { close(): void } | null };
  internals._handle?.close();
  internals._handle = null;
  onError?.(new Error(`the listening socket stopped accepting; listening again on port ${port}`));
  server.listen(port, hostname);
}
