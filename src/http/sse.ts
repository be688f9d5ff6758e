/** How often a comment keeps an idle event stream open: every 15 s without an event. */
export const KEEP_ALIVE_MS = 15_000;

/** Headers of an event stream: never cached or transformed, never sniffed, no CORS. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store, no-transform",
  "x-content-type-options": "nosniff",
};

/** An open Server-Sent Events response. */
export interface SseWriter {
  response: Response;
  /** One event: `event:` the line's type, `data:` the line as one JSON text. */
  send(line: { type: string }): void;
  /** Ends the stream (later sends are dropped). */
  close(): void;
}

/**
 * A Server-Sent Events response written event by event, with a `: keep-alive` comment whenever
 * nothing was sent for `keepAliveMs`. `onCancel` runs when the reader goes away first.
 */
export function sseWriter(
  options: { keepAliveMs?: number; onCancel?: () => void } = {},
): SseWriter {
  const encoder = new TextEncoder();
  const every = options.keepAliveMs ?? KEEP_ALIVE_MS;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const write = (text: string) => {
    if (!open) return;
    controller.enqueue(encoder.encode(text));
    clearTimeout(timer);
    timer = setTimeout(() => write(": keep-alive\n\n"), every);
  };
  const stop = () => {
    open = false;
    clearTimeout(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      timer = setTimeout(() => write(": keep-alive\n\n"), every);
    },
    cancel() {
      stop();
      options.onCancel?.();
    },
  });
  return {
    response: new Response(body, { status: 200, headers: SSE_HEADERS }),
    send: (line) => write(`event: ${line.type}\ndata: ${JSON.stringify(line)}\n\n`),
    close() {
      if (!open) return;
      stop();
      controller.close();
    },
  };
}
