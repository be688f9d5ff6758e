/**
 * The loopback address an authorization server sends the browser back to (RFC 8252 §7.3): an
 * HTTP listener on 127.0.0.1 that takes one redirect to `/callback` and then closes, or gives up
 * after a time.
 */

/** The query of the redirect: code, state, iss, or error and error_description. */
export type RedirectParams = URLSearchParams;

/** A listening loopback address waiting for one redirect. */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`. */
  url: string;
  port: number;
  /** Resolves with the redirect's query; rejects after `timeoutMs` or on `close()`. */
  received: Promise<RedirectParams>;
  close(): Promise<void>;
}

/**
 * Listens on `port` (when it is free; any port otherwise) of 127.0.0.1. `page(params)` is the
 * text the browser shows once the redirect arrived.
 */
export function listenForRedirect(
  options: { port?: number; timeoutMs: number; page(params: RedirectParams): string },
): LoopbackRedirect {
  const { promise, resolve, reject } = Promise.withResolvers<RedirectParams>();
  promise.catch(() => {});
  const handler = (request: Request): Response => {
    const url = new URL(request.url);
    if (request.method !== "GET" || url.pathname !== "/callback") {
      return new Response("Not found\n", { status: 404 });
    }
    resolve(url.searchParams);
    return new Response(options.page(url.searchParams), {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  };
  const server = serve(handler, options.port);
  const port = server.addr.port;
  const timer = setTimeout(() => {
    reject(
      new Error(
        `no answer from the browser within ${Math.round(options.timeoutMs / 1000)} s; ` +
          "run the command again to sign in",
      ),
    );
  }, options.timeoutMs);
  return {
    url: `http://127.0.0.1:${port}/callback`,
    port,
    received: promise,
    async close() {
      clearTimeout(timer);
      reject(new Error("the sign-in was cancelled"));
      await server.shutdown();
    },
  };
}

function serve(
  handler: (request: Request) => Response,
  port?: number,
): Deno.HttpServer<Deno.NetAddr> {
  const options = { hostname: "127.0.0.1", onListen: () => {} };
  if (port) {
    try {
      return Deno.serve({ ...options, port }, handler);
    } catch (err) {
      if (!(err instanceof Deno.errors.AddrInUse)) throw err;
    }
  }
  return Deno.serve({ ...options, port: 0 }, handler);
}
