/** A local HTTP server on 127.0.0.1 serving every shape web_fetch and web_search must handle. */
import { ConfigSchema } from "../../../src/config/schema.ts";
import type { ToolContext } from "../../../src/plugin/api.ts";

const encoder = new TextEncoder();

/** A page of `n` numbered lines, each 50 characters with its newline. */
export function numberedLines(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${String(i).padStart(5, "0")} `.padEnd(49, "x"))
    .join("\n");
}

function endless(chunk: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({ pull: (c) => c.enqueue(chunk) });
}

/** Sends a few bytes, then nothing until the client disconnects (or five seconds pass). */
function stalled(): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream({
    start(c) {
      c.enqueue(encoder.encode("<p>first bytes"));
      timer = setTimeout(() => c.close(), 5000);
    },
    cancel: () => clearTimeout(timer),
  });
}

async function gzip(text: string): Promise<ArrayBuffer> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return await new Response(stream).arrayBuffer();
}

/** Extra routes a test adds (search backends); return undefined to fall through. */
export type Routes = (url: URL, base: string) => Response | Promise<Response> | undefined;

async function route(request: Request, base: string, extra?: Routes): Promise<Response> {
  const url = new URL(request.url);
  const custom = await extra?.(url, base);
  if (custom) return custom;
  const html = (body: string, type = "text/html; charset=utf-8") =>
    new Response(body, { headers: { "content-type": type } });
  switch (url.pathname) {
    case "/page.html":
      return html(
        "<html><head><title>Local page</title><script>alert(1)</script></head><body>" +
          "<nav><a href='/'>Home</a></nav><h1>Hello</h1><p>Some <b>text</b> with a " +
          "<a href='/next.html'>link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>",
      );
    case "/host":
      return html(`host=${request.headers.get("host")}`, "text/plain");
    case "/data.json":
      return new Response('{"answer": 42}', { headers: { "content-type": "application/json" } });
    case "/image.png":
      return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]), {
        headers: { "content-type": "image/png" },
      });
    case "/blob":
      return new Response(new Uint8Array([1, 2, 0, 0, 255, 7]), {
        headers: { "content-type": "application/octet-stream" },
      });
    case "/notes":
      return new Response("plain notes without a type", {
        headers: { "content-type": "application/octet-stream" },
      });
    case "/long.txt":
      return html(numberedLines(1000), "text/plain");
    case "/huge.html":
      return html(`<p>${"a".repeat(3 * 1024 * 1024)}</p>`);
    case "/endless":
      return new Response(endless(encoder.encode("y".repeat(65536))), {
        headers: { "content-type": "text/plain" },
      });
    case "/slow":
      return new Response(stalled(), { headers: { "content-type": "text/html" } });
    case "/gzip":
      return new Response(await gzip("<p>compressed page</p>"), {
        headers: { "content-type": "text/html", "content-encoding": "gzip" },
      });
    case "/bomb":
      return new Response(await gzip("a".repeat(20 * 1024 * 1024)), {
        headers: { "content-type": "text/plain", "content-encoding": "gzip" },
      });
    case "/latin1":
      return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), {
        headers: { "content-type": "text/plain; charset=iso-8859-1" },
      });
    case "/redirect":
      return new Response(null, {
        status: 302,
        headers: { location: url.searchParams.get("to") ?? "/" },
      });
    case "/loop":
      return new Response(null, { status: 301, headers: { location: "/loop" } });
  }
  const hops = url.pathname.match(/^\/chain\/(\d+)$/);
  if (hops) {
    const n = Number(hops[1]);
    const location = n > 0 ? `/chain/${n - 1}` : "/data.json";
    return new Response(null, { status: 307, headers: { location } });
  }
  return new Response("not here", { status: 404, statusText: "Not Found" });
}

/** Runs `fn` with a fresh server on 127.0.0.1 (https with `tls`); `base` is its address. */
export async function withServer(
  fn: (base: string, port: number) => Promise<void>,
  extra?: Routes,
  tls?: { cert: string; key: string },
): Promise<void> {
  let base = "";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...tls },
    (request) => route(request, base, extra),
  );
  base = `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}`;
  try {
    await fn(base, server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/** A ToolContext for calling a tool's `run` directly. */
export function toolContext(worktree: string, session: string, config = {}): ToolContext {
  return {
    worktree,
    signal: new AbortController().signal,
    config: ConfigSchema.parse(config),
    session,
    headless: true,
    ask: () => Promise.resolve(null),
    status: () => {},
  };
}
