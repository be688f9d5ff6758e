// deno-lint-ignore-file no-explicit-any
/**
 * A scripted OpenAI-compatible chat-completions server for tests: real HTTP via Deno.serve on
 * 127.0.0.1 (port 0) and real SSE. The i-th POST /v1/chat/completions gets the i-th scripted reply.
 */

/** A streamed (or, for `stream: false`, plain JSON) assistant answer. */
export interface TextReply {
  text?: string;
  thinking?: string;
  thinkingField?: "reasoning_content" | "reasoning";
  tool_calls?: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  /** Default "tool_calls" when tool_calls are given, else "stop"; null sends no finish chunk. */
  finish?: string | null;
  /** Sent in a final chunk after the finish chunk. */
  usage?: Record<string, unknown>;
  /** Split text and thinking into chunks of N characters (default 8). */
  chunkSize?: number;
  /** Delay between chunks in milliseconds. */
  delayMs?: number;
  /** Write each event containing a multi-byte character as two network writes split inside it. */
  splitUtf8?: boolean;
  /**
   * Break the stream after the content and tool-call deltas, before the finish chunk: `cut`
   * closes it, `stall` keeps it open and silent, `error` sends an error object inside the stream.
   */
  breakWith?: "cut" | "stall" | "error";
}

/** One scripted answer to a chat-completions request. */
export type Reply =
  | TextReply
  | { status: number; body?: string; headers?: Record<string, string> }
  | { cut: true; text?: string }
  | { stall: true; text?: string }
  /**
   * Like `stall`, but every `everyMs` (default 50) a keep-alive comment and two empty deltas; with
   * `forMs`, after that long the answer `then` follows and the stream completes.
   */
  | { keepAlive: true; text?: string; everyMs?: number; forMs?: number; then?: string }
  | RawReply;

/**
 * A body replayed byte for byte (a recorded stream transcript): served with `headers` (default
 * `content-type: text/event-stream`) and HTTP 200, in `writes` network writes (default 1) cut at
 * even byte offsets, so lines, events and multi-byte characters may straddle two reads.
 */
export interface RawReply {
  raw: string | Uint8Array;
  writes?: number;
  headers?: Record<string, string>;
}

/** A running fake server. */
export interface FakeProvider {
  /** e.g. http://127.0.0.1:41234 (no trailing slash, no /v1). */
  url: string;
  requests: Array<{ method: string; path: string; headers: Record<string, string>; body: any }>;
  /** Stops the server; never hangs, even with stalled streams open. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const MODEL = "fake-model";

/**
 * Starts a fake provider answering from `script` (an array consumed in order, or a function).
 * `hostname` (default 127.0.0.1) is the address it listens on: 0.0.0.0 lets a container reach it
 * through the host's address; `url` stays the loopback one.
 */
export function startFakeProvider(
  script: Reply[] | ((body: any, index: number) => Reply),
  options: {
    models?: string[];
    hostname?: string;
    /** Extra fields of each listed model's entry (`architecture.input_modalities`, ...). */
    entry?: Record<string, unknown>;
  } = {},
): Promise<FakeProvider> {
  const requests: FakeProvider["requests"] = [];
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const closing = new AbortController();
  let chatCount = 0;

  const pick = (body: any): Reply => {
    const index = chatCount++;
    if (typeof script === "function") return script(body, index);
    return script[index] ?? { text: "(script exhausted)" };
  };

  const handler = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const text = req.method === "POST" ? await req.text() : "";
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch { /* keep the raw text */ }
    requests.push({ method: req.method, path, headers: Object.fromEntries(req.headers), body });
    if (req.method === "GET" && path === "/v1/models") {
      const ids = options.models ?? [MODEL];
      const data = ids.map((id) => ({ id, object: "model", ...options.entry }));
      return Response.json({ object: "list", data });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return new Response("not found", { status: 404 });
    }
    const reply = pick(body);
    if ("status" in reply) {
      return new Response(reply.body ?? `{"error":{"message":"HTTP ${reply.status}"}}`, {
        status: reply.status,
        headers: reply.headers,
      });
    }
    if ("raw" in reply) return rawResponse(reply, closing.signal);
    const model = typeof body?.model === "string" ? body.model : MODEL;
    if (
      body?.stream === false && !("cut" in reply) && !("stall" in reply) && !("keepAlive" in reply)
    ) {
      return Response.json(completion(reply as TextReply, model));
    }
    return streamResponse(reply, model, open, closing.signal);
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: options.hostname ?? "127.0.0.1",
      port: 0,
      signal: closing.signal,
      onListen: () => {},
    }, handler);
    const addr = server.addr as Deno.NetAddr;
    resolve({
      url: `http://127.0.0.1:${addr.port}`,
      requests,
      async close() {
        closing.abort();
        for (const controller of open) {
          try {
            controller.close();
          } catch { /* already closed */ }
        }
        open.clear();
        await server.finished;
      },
    });
  });
}

function chunk(delta: Record<string, unknown>, finish: string | null, model: string): string {
  const obj = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(obj)}\n\n`;
}

function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Splits a string into at least two (when possible) and at most four fragments. */
function fragments(text: string): string[] {
  if (text.length < 2) return [text];
  const n = Math.min(4, text.length);
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function argString(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** The SSE events of a text reply, in order. */
function sseEvents(reply: TextReply, model: string): string[] {
  const size = reply.chunkSize ?? 8;
  const field = reply.thinkingField ?? "reasoning_content";
  const events: string[] = [];
  const push = (delta: Record<string, unknown>, finish: string | null = null) =>
    events.push(chunk(delta, finish, model));
  if (reply.thinking) { for (const p of pieces(reply.thinking, size)) push({ [field]: p }); }
  if (reply.text) { for (const p of pieces(reply.text, size)) push({ content: p }); }
  const calls = reply.tool_calls ?? [];
  const frags = calls.map((c) => fragments(argString(c.arguments)));
  calls.forEach((c, index) =>
    push({
      tool_calls: [{
        index,
        id: c.id ?? `call_${index}`,
        type: "function",
        function: { name: c.name, arguments: "" },
      }],
    })
  );
  // Interleave argument fragments across calls so only the index ties them together.
  const rounds = Math.max(0, ...frags.map((f) => f.length));
  for (let r = 0; r < rounds; r++) {
    frags.forEach((f, index) => {
      if (r < f.length) push({ tool_calls: [{ index, function: { arguments: f[r] } }] });
    });
  }
  if (reply.breakWith === "error") {
    events.push(`data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`);
  }
  if (reply.breakWith) return events;
  const finish = reply.finish === undefined ? (calls.length ? "tool_calls" : "stop") : reply.finish;
  if (finish !== null) push({}, finish);
  if (reply.usage) {
    events.push(
      `data: ${JSON.stringify({ id: "chatcmpl-fake", choices: [], usage: reply.usage })}\n\n`,
    );
  }
  events.push("data: [DONE]\n\n");
  return events;
}

/** Byte writes for one event; with splitUtf8 a multi-byte character straddles two writes. */
function writes(event: string, splitUtf8: boolean): Uint8Array[] {
  const bytes = encoder.encode(event);
  if (!splitUtf8) return [bytes];
  const lead = bytes.findIndex((b) => b >= 0xc0);
  if (lead < 0) return [bytes];
  return [bytes.subarray(0, lead + 1), bytes.subarray(lead + 1)];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function streamResponse(
  reply: Exclude<Reply, { status: number } | RawReply>,
  model: string,
  open: Set<ReadableStreamDefaultController<Uint8Array>>,
  closing: AbortSignal,
): Response {
  let cancelled = false;
  let ctrl: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      ctrl = controller;
      open.add(controller);
      run().catch(() => {});
    },
    cancel() {
      cancelled = true;
      open.delete(ctrl);
    },
  });

  async function run() {
    const live = () => !cancelled && !closing.aborted;
    const text = "text" in reply ? reply.text : undefined;
    if ("cut" in reply || "stall" in reply || "keepAlive" in reply) {
      for (const p of pieces(text ?? "", 8)) {
        ctrl.enqueue(encoder.encode(chunk({ content: p }, null, model)));
      }
      if ("stall" in reply) return; // keep the connection open until the client or close() ends it
      if ("keepAlive" in reply) {
        const noise = [
          ": keep-alive\n\n",
          chunk({}, null, model),
          chunk({ content: "" }, null, model),
        ]
          .join("");
        const end = reply.forMs === undefined ? Infinity : Date.now() + reply.forMs;
        while (live() && Date.now() < end) {
          ctrl.enqueue(encoder.encode(noise));
          await sleep(reply.everyMs ?? 50, closing);
        }
        if (!live() || end === Infinity) return;
        ctrl.enqueue(encoder.encode(chunk({ content: reply.then ?? "" }, null, model)));
        ctrl.enqueue(encoder.encode(chunk({}, "stop", model) + "data: [DONE]\n\n"));
        finish();
        return;
      }
      await sleep(5, closing);
      if (live()) finish();
      return;
    }
    const split = (reply as TextReply).splitUtf8 ?? false;
    for (const event of sseEvents(reply as TextReply, model)) {
      for (const [i, bytes] of writes(event, split).entries()) {
        if (!live()) return;
        if (i > 0) await sleep(5, closing); // let the first half reach the client on its own
        if (!live()) return;
        ctrl.enqueue(bytes);
      }
      if (reply.delayMs) await sleep(reply.delayMs, closing);
    }
    const breakWith = (reply as TextReply).breakWith;
    if (breakWith === "stall") return; // open until the client or close() ends it
    if (live()) finish();
  }

  function finish() {
    open.delete(ctrl);
    try {
      ctrl.close();
    } catch { /* cancelled meanwhile */ }
  }

  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function rawResponse(reply: RawReply, closing: AbortSignal): Response {
  const bytes = typeof reply.raw === "string" ? encoder.encode(reply.raw) : reply.raw;
  const headers = reply.headers ?? { "content-type": "text/event-stream" };
  const writes = Math.max(1, Math.min(reply.writes ?? 1, bytes.length));
  if (writes === 1) return new Response(bytes.slice(), { headers });
  const size = Math.ceil(bytes.length / writes);
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (at > 0) await sleep(5, closing); // each write reaches the client on its own
      if (closing.aborted || at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
      if (at >= bytes.length) controller.close();
    },
  }, { highWaterMark: 0 });
  return new Response(stream, { headers });
}

/** The non-streaming chat.completion object for a text reply. */
function completion(r: TextReply, model: string) {
  const calls = (r.tool_calls ?? []).map((c, index) => ({
    id: c.id ?? `call_${index}`,
    type: "function",
    function: { name: c.name, arguments: argString(c.arguments) },
  }));
  const message: Record<string, unknown> = { role: "assistant", content: r.text ?? "" };
  if (calls.length) message.tool_calls = calls;
  if (r.thinking) message[r.thinkingField ?? "reasoning_content"] = r.thinking;
  const finish = r.finish === undefined ? (calls.length ? "tool_calls" : "stop") : r.finish;
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(r.usage ? { usage: r.usage } : {}),
  };
}
