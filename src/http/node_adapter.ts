import type { IncomingMessage, ServerResponse } from "node:http";
import { Buffer } from "node:buffer";

/**
 * Serves a web `(Request) => Promise<Response>` handler through node:http. The Request gets the
 * path of the request line under `origin`, the headers as sent (Host included, for the guard), a
 * streamed body, and a `signal` that aborts when the client goes away before the response has been
 * sent (what svc's routes take to mean "cancel"). A JSON Response goes out whole with its length;
 * any other body (SSE) is streamed with backpressure, chunk by chunk. A response sent before the
 * request body was read whole says `Connection: close` and closes the connection, so an unread
 * upload cannot keep it and the client does not reuse it.
 */
export function nodeHandler(
  handler: (request: Request) => Promise<Response>,
  origin: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const socket = req.socket; // detached from `res` by the time it finishes
    res.once("finish", () => {
      if (!req.complete) socket.destroySoon();
    });
    let request: Request;
    try {
      request = toRequest(req, origin, gone.signal);
    } catch {
      res.writeHead(400, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ error: "malformed request" }));
      return;
    }
    handler(request).then(
      (response) => send(res, response, { gone: gone.signal, unread: () => !req.complete }),
      () => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "internal error" }));
      },
    );
  };
}

function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const target = req.url ?? "";
  if (!target.startsWith("/")) throw new Error("only origin-form request targets are served");
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? null : bodyStream(req);
  return new Request(origin + target, {
    method,
    headers,
    body,
    signal,
    // @ts-ignore: `duplex` is required for a streamed body but missing from the DOM types
    duplex: "half",
  });
}

/** The request body as a web stream that pauses the socket while nobody reads it. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  // False once the stream is closed, errored or cancelled: a later `end` must not close it again.
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = (err?: Error) => {
        if (!open) return;
        open = false;
        if (err) controller.error(err);
        else controller.close();
      };
      req.on("data", (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once("end", () => finish());
      req.once("error", (err) => finish(err));
      req.once("close", () => {
        if (!req.complete) finish(new Error("client closed the request"));
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.pause();
    },
  }, { highWaterMark: 4 });
}

async function send(
  res: ServerResponse,
  response: Response,
  { gone, unread }: { gone: AbortSignal; unread: () => boolean },
): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => headers[name] = value);
  // The socket closes after a reply to an unread body (see nodeHandler): say so, so the client
  // does not send its next request on it.
  if (unread()) headers["connection"] = "close";
  const whole = (headers["content-type"] ?? "").startsWith("application/json");
  if (!response.body || whole) {
    // A JSON reply is complete: it goes out with its Content-Length instead of chunked.
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (body) headers["content-length"] = String(body.byteLength);
    if (res.destroyed) return;
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders(); // an event stream starts now, not with its first event
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  gone.addEventListener("abort", stop, { once: true });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    gone.removeEventListener("abort", stop);
  }
}
