/** One streamed chat-completions request: yields content events, returns how the stream ended. */
import { createParser } from "eventsource-parser";
import { ChunkAccumulator } from "./chunk_accumulator.ts";
import { parseRetryAfter, shortBody } from "./http_util.ts";
import { readBodyCapped } from "../util/read_body.ts";
import type { ChatToolCall, StreamEvent, Usage } from "./types.ts";
import { startTimer } from "../util/timer.ts";

/** How one attempt ended; the retry policy in sse_client.ts decides what happens next. */
export type AttemptOutcome =
  | { kind: "complete"; finish: string | null; usage?: Usage; toolCalls: ChatToolCall[] }
  | { kind: "ended"; sawContent: boolean; detail?: string }
  | { kind: "http"; status: number; retryAfter: number | null; body: string }
  | { kind: "network"; detail: string }
  /** `pings`: only keep-alives came for `seconds` (stream_ping_timeout), else no byte at all. */
  | { kind: "stall"; sawContent: boolean; seconds: number; pings?: boolean }
  | { kind: "provider_error"; detail: string }
  | { kind: "oversized"; detail: string }
  | { kind: "cancelled" };

export interface AttemptOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Seconds without a byte before a stall; 0 disables. Keep-alives count as bytes here. */
  idleTimeout: number;
  /**
   * Seconds without output (keep-alive comments and empty deltas are not output) before a stall,
   * however many keep-alives came; 0 disables.
   */
  pingTimeout?: number;
  /** Seconds to wait for the response head; 0 disables. */
  headerTimeout: number;
  signal?: AbortSignal;
  /** Who answers (originOf): the fields kept for that provider are tagged with it. */
  origin?: string;
}

const MAX_ERROR_BODY = 4096;
/** How much of a body that is not SSE at all is kept as the server's message. */
const MAX_RAW_HEAD = 4096;
/** How much of a stream's end is kept to find a last line that is not SSE. */
const MAX_TAIL = 1024;
/** A line the SSE format knows: a field (`data:`, `event:`, `id:`, `retry:`) or a comment. */
const SSE_LINE = /^(?::|(?:data|event|id|retry)(?::|$))/;
/**
 * Bounds for a broken or hostile backend: one SSE event (a line that never ends included) and
 * one whole streamed response. Both are far above any real answer (a 100,000-token answer is
 * about 20 MiB of SSE); past them the round fails instead of filling memory or running forever.
 */
export const MAX_EVENT_CHARS = 16 << 20;
export const MAX_RESPONSE_BYTES = 128 << 20;
const MIB = (n: number) => `${n >> 20} MiB`;

/**
 * Runs one streaming request; must not throw. When the stream fails after tool calls arrived,
 * the calls whose arguments are complete JSON are yielded as a `tool_calls` event before the
 * outcome is returned: they still run (the retry policy never repeats a stream that had content).
 */
export async function* streamAttempt(
  opts: AttemptOptions,
): AsyncGenerator<StreamEvent, AttemptOutcome> {
  const acc = new ChunkAccumulator();
  const outcome = yield* attempt(opts, acc);
  if (outcome.kind === "cancelled") return outcome;
  if (acc.ignoredParts.size) {
    const kinds = [...acc.ignoredParts].map(([type, n]) => `${type} ×${n}`).join(", ");
    const total = [...acc.ignoredParts.values()].reduce((a, b) => a + b, 0);
    yield { type: "status", message: `ignored ${total} content part(s) of unknown type: ${kinds}` };
  }
  const fields = acc.providerFields(opts.origin ?? "");
  if (fields) yield { type: "provider_fields", fields };
  if (outcome.kind !== "complete") {
    const calls = acc.completeToolCalls();
    if (calls.length) yield { type: "tool_calls", tool_calls: calls };
  }
  return outcome;
}

// One piece: the watchdog, the abort wiring and the reader share state that one finally releases.
async function* attempt(
  opts: AttemptOptions,
  acc: ChunkAccumulator,
): AsyncGenerator<StreamEvent, AttemptOutcome> {
  const ctl = new AbortController();
  let stalled = false;
  let stalledOnPings = false;
  // One watchdog timer per phase; reads only move `lastByte` and `lastOutput`, so a fast stream
  // costs no timers. Every byte moves `lastByte` (bounded by `seconds`); only output moves
  // `lastOutput` (bounded by `pingSeconds`): keep-alive comments and empty deltas do not (see
  // acc.progress), so they keep a stream alive up to the longer ping bound only.
  let cancelTimer = () => {};
  let lastByte = 0;
  let lastOutput = 0;
  const arm = (seconds: number, pingSeconds = 0) => {
    cancelTimer();
    lastByte = lastOutput = performance.now();
    if (seconds <= 0 && pingSeconds <= 0) return;
    const left = (bound: number, since: number) =>
      bound > 0 ? bound * 1000 - (performance.now() - since) : Infinity;
    const check = () => {
      const byteLeft = left(seconds, lastByte);
      const pingLeft = left(pingSeconds, lastOutput);
      if (byteLeft > 0 && pingLeft > 0) {
        cancelTimer = startTimer(Math.min(byteLeft, pingLeft), check);
      } else (stalled = true, stalledOnPings = byteLeft > 0, ctl.abort());
    };
    check();
  };
  const onAbort = () => ctl.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const complete = (): AttemptOutcome => ({
    kind: "complete",
    finish: acc.finish,
    usage: acc.usage,
    toolCalls: acc.toolCalls(),
  });
  const interrupted = (detail: string): AttemptOutcome => {
    if (opts.signal?.aborted) return { kind: "cancelled" };
    if (acc.completed) return complete();
    if (stalledOnPings) {
      const seconds = opts.pingTimeout ?? 0;
      return { kind: "stall", sawContent: acc.sawContent, seconds, pings: true };
    }
    if (stalled) return { kind: "stall", sawContent: acc.sawContent, seconds: opts.idleTimeout };
    return { kind: "ended", sawContent: acc.sawContent, detail };
  };
  try {
    if (opts.signal?.aborted) return { kind: "cancelled" };
    arm(opts.headerTimeout);
    let res: Response;
    try {
      res = await fetch(opts.url, {
        method: "POST",
        headers: opts.headers,
        body: opts.body,
        signal: ctl.signal,
      });
    } catch (err) {
      if (opts.signal?.aborted) return { kind: "cancelled" };
      if (stalled) return { kind: "stall", sawContent: false, seconds: opts.headerTimeout };
      return { kind: "network", detail: (err as Error).message };
    }
    if (!res.ok || !res.body) {
      const body = await readBodyCapped(res, MAX_ERROR_BODY).then((b) => b.text, () => "");
      if (opts.signal?.aborted) return { kind: "cancelled" };
      const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
      return { kind: "http", status: res.status, retryAfter, body };
    }
    if (/^application\/json\b/i.test(res.headers.get("content-type") ?? "")) {
      try {
        return yield* wholeAnswer(res, acc);
      } catch (err) {
        return interrupted((err as Error).message);
      }
    }
    const pending: StreamEvent[] = [];
    let overflow = false;
    // Whether anything SSE-shaped came (an event, a comment); a body with none is not a stream,
    // and its first KiBs (an HTML error page, a plain-text refusal) are the server's message.
    let sawSse = false;
    let rawHead = "";
    // The stream's last bytes: a proxy that cuts a stream often ends it with a plain-text line.
    let tail = "";
    const parser = createParser({
      onEvent: (e) => (sawSse = true, pending.push(...acc.handle(e.data, e.event))),
      onComment: () => (sawSse = true),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") overflow = true;
        // llama.cpp sends a streamed error as an `error: {...}` line instead of a data event.
        else if (err.type === "unknown-field" && err.field === "error") {
          sawSse = true;
          pending.push(...acc.handle(err.value ?? "", "error"));
        } else if (err.type === "unknown-field") acc.noteStray(err.line ?? err.field ?? "");
      },
      maxBufferSize: MAX_EVENT_CHARS,
    });
    let received = 0;
    // A streaming TextDecoder keeps a character split across reads whole (cheaper than a
    // TextDecoderStream pipe, which costs a promise hop per chunk).
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      arm(opts.idleTimeout, opts.pingTimeout ?? 0);
      while (!acc.doneSeen && acc.errorMessage === undefined) {
        const { value, done } = await reader.read();
        received += value?.length ?? 0;
        if (value?.length) lastByte = performance.now();
        const progress = acc.progress;
        // At the end, flush the decoder and an event missing its closing blank line.
        const text = done ? decoder.decode() + "\n\n" : decoder.decode(value, { stream: true });
        if (!sawSse && rawHead.length < MAX_RAW_HEAD) rawHead += text.slice(0, MAX_RAW_HEAD);
        tail = (tail + text).slice(-MAX_TAIL);
        parser.feed(text);
        if (acc.progress !== progress) lastOutput = performance.now();
        for (const event of pending.splice(0)) yield event;
        if (overflow) {
          return { kind: "oversized", detail: `one stream event exceeded ${MIB(MAX_EVENT_CHARS)}` };
        }
        if (received > MAX_RESPONSE_BYTES) {
          return { kind: "oversized", detail: `the response exceeded ${MIB(MAX_RESPONSE_BYTES)}` };
        }
        if (done) break;
      }
    } catch (err) {
      return interrupted((err as Error).message);
    } finally {
      reader.cancel().catch(() => {});
    }
    if (acc.errorMessage !== undefined) return { kind: "provider_error", detail: acc.errorMessage };
    if (acc.completed) return complete();
    if (!sawSse && rawHead.trim()) return { kind: "provider_error", detail: shortBody(rawHead) };
    const last = tail.split(/\r\n|\r|\n/).filter((line) => line.trim()).at(-1) ?? "";
    if (last && !SSE_LINE.test(last)) acc.noteStray(last);
    if (acc.strayText) return { kind: "provider_error", detail: shortBody(acc.strayText) };
    return { kind: "ended", sawContent: acc.sawContent };
  } finally {
    cancelTimer();
    opts.signal?.removeEventListener("abort", onAbort);
    ctl.abort();
  }
}

/**
 * A server that ignores `stream: true` sends one JSON completion instead of SSE; it is read
 * (capped like a stream) and replayed through the same accumulator, so callers see no difference.
 * Throws when the body cannot be read (the caller tells a cancel or a stall from a cut).
 */
async function* wholeAnswer(
  res: Response,
  acc: ChunkAccumulator,
): AsyncGenerator<StreamEvent, AttemptOutcome> {
  const read = await readBodyCapped(res, MAX_RESPONSE_BYTES);
  if (read.truncated) {
    return { kind: "oversized", detail: `the response exceeded ${MIB(MAX_RESPONSE_BYTES)}` };
  }
  for (const event of acc.handle(read.text)) yield event;
  if (acc.errorMessage !== undefined) return { kind: "provider_error", detail: acc.errorMessage };
  if (!acc.sawContent && !acc.completed && acc.strayText) {
    return { kind: "provider_error", detail: shortBody(acc.strayText) };
  }
  if (!acc.sawContent && !acc.completed) {
    return { kind: "ended", sawContent: false, detail: "the JSON answer held no message" };
  }
  return {
    kind: "complete",
    finish: acc.finish,
    usage: acc.usage,
    toolCalls: acc.toolCalls(),
  };
}
