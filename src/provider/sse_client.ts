/** The streaming chat-completions client: retries, HTTP errors, stalls and cancellation. */
import { buildPayload } from "./payload.ts";
import {
  endpoint,
  formatSeconds,
  formatWait,
  jittered,
  MAX_RETRY_AFTER,
  redact,
  requestHeaders,
  shortBody,
} from "./http_util.ts";
import { sleep } from "../util/time.ts";
import { chatNonStreaming, listModels } from "./unary.ts";
import { type AttemptOutcome, streamAttempt } from "./stream_attempt.ts";
import { CONTEXT_OVERFLOW, isContextOverflow } from "./context_overflow.ts";
import { probeContextWindow, probeImageInput } from "./model_facts.ts";
import { originOf } from "./provider_fields.ts";
import type { ChatClient, ChatRequest, StreamEvent } from "./types.ts";

/** Options of createChatClient; durations are seconds. */
export interface ChatClientOptions {
  provider: string;
  baseUrl: string;
  apiKey: string;
  /** Extra request headers (plugin or table headers; never the key). */
  headers?: Record<string, string>;
  /** Extra attempts for a stream that ends with no completion and no content (default 2). */
  streamRetries?: number;
  /**
   * Wait between attempts (default 0.5); doubles per retry after HTTP 429/5xx without Retry-After.
   * Each wait is jittered to between half and all of that.
   */
  retryDelay?: number;
  /**
   * No byte for this long fails the round with code `stall` (default 120, 0 = none); keep-alive
   * comments and empty deltas count as life here, up to `pingTimeout`.
   */
  idleTimeout?: number;
  /**
   * Only keep-alive comments and empty deltas, no output, for this long fails the round with code
   * `stall` (default 600, 0 = none).
   */
  pingTimeout?: number;
  /** Wait for the response head (streaming) or whole answer (non-streaming, default 60). */
  requestTimeout?: number;
}

/** The message every caller sees when a stream gives nothing after all attempts. */
export const STREAM_ENDED_EARLY = "Stream ended before a completion event";

/** A ChatClient for one backend connection. */
export function createChatClient(opts: ChatClientOptions): ChatClient {
  const base = { ...opts, baseUrl: opts.baseUrl.replace(/\/+$/, "") };
  const usage = { ask: true };
  return {
    provider: opts.provider,
    baseUrl: base.baseUrl,
    chat: (request, signal) => streamChat(base, { request, usage }, signal),
    chatNonStreaming: (request, signal) => chatNonStreaming(base, request, signal),
    listModels: (signal) => listModels(base, signal),
    contextWindow: (model) => probeContextWindow(base, model),
    acceptsImages: (model) => probeImageInput(base, model),
    redact: (text) => redact(text, opts.apiKey),
  };
}

/**
 * Whether an HTTP error refused `stream_options` (an older or stricter server: "Unrecognized
 * request argument supplied: stream_options", "extra fields not permitted"); the request is then
 * sent again without it, and the connection stops asking for usage.
 */
function refusedStreamOptions(outcome: { status: number; body: string }): boolean {
  return (outcome.status === 400 || outcome.status === 422) &&
    outcome.body.includes("stream_options");
}

/**
 * One attempt; when the server refused `stream_options`, the same request without it, at once
 * (not another attempt), and the connection stops asking for usage.
 */
async function* attemptOnce(
  attempt: Parameters<typeof streamAttempt>[0],
  { opts, request, usage }: {
    opts: ChatClientOptions;
    request: ChatRequest;
    usage: { ask: boolean };
  },
): AsyncGenerator<StreamEvent, AttemptOutcome> {
  const outcome = yield* streamAttempt(attempt);
  if (outcome.kind !== "http" || !usage.ask || !refusedStreamOptions(outcome)) return outcome;
  usage.ask = false;
  attempt.body = JSON.stringify(
    buildPayload(opts.provider, request, { stream: true, usage: false, origin: attempt.origin }),
  );
  return yield* streamAttempt(attempt);
}

/** What every attempt of one round sends, and its time bounds. */
function attemptOptions(
  opts: ChatClientOptions,
  { request, usage, signal }: { request: ChatRequest; usage: boolean; signal?: AbortSignal },
): Parameters<typeof streamAttempt>[0] {
  const idleTimeout = opts.idleTimeout ?? 120;
  const origin = originOf(opts.provider, opts.baseUrl);
  return {
    url: endpoint(opts.baseUrl, "chat/completions"),
    headers: { ...requestHeaders(opts.apiKey, opts.headers), accept: "text/event-stream" },
    body: JSON.stringify(buildPayload(opts.provider, request, { stream: true, usage, origin })),
    idleTimeout,
    pingTimeout: opts.pingTimeout ?? 600,
    headerTimeout: opts.requestTimeout ?? idleTimeout,
    signal,
    origin,
  };
}

/** Streams one round; never throws, always ends with exactly one `done` event. */
async function* streamChat(
  opts: ChatClientOptions,
  { request, usage }: { request: ChatRequest; usage: { ask: boolean } },
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const attempts = 1 + Math.max(0, opts.streamRetries ?? 2);
  const delay = opts.retryDelay ?? 0.5;
  const attempt = attemptOptions(opts, { request, usage: usage.ask, signal });
  const fail = (code: string, message: string): StreamEvent[] => [
    { type: "error", code, message: redact(message, opts.apiKey) },
    { type: "done", reason: "error" },
  ];
  try {
    for (let n = 1;; n++) {
      const outcome: AttemptOutcome = yield* attemptOnce(attempt, { opts, request, usage });
      const last = n >= attempts;
      switch (outcome.kind) {
        case "complete":
          if (outcome.toolCalls.length) yield { type: "tool_calls", tool_calls: outcome.toolCalls };
          yield {
            type: "done",
            reason: outcome.finish ?? (outcome.toolCalls.length ? "tool_calls" : "stop"),
            ...(outcome.usage ? { usage: outcome.usage } : {}),
          };
          return;
        case "cancelled":
          yield { type: "done", reason: "cancelled" };
          return;
        case "ended": {
          if (outcome.sawContent) {
            const why = outcome.detail ? ` (${outcome.detail})` : "";
            yield* fail("stream_incomplete", `${STREAM_ENDED_EARLY}; partial output kept${why}`);
            return;
          }
          if (last) return yield* fail("stream_ended", STREAM_ENDED_EARLY);
          yield {
            type: "status",
            message: `stream ended early, retrying (attempt ${n + 1} of ${attempts})`,
          };
          if (!(await sleep(jittered(delay) * 1000, signal))) break;
          continue;
        }
        case "http": {
          const message = `${opts.provider} returned HTTP ${outcome.status}: ${
            shortBody(outcome.body)
          }`;
          // Too long for the window: no retry helps; the engine compacts and sends it again.
          if (isContextOverflow(outcome.body)) return yield* fail(CONTEXT_OVERFLOW, message);
          const retryable = outcome.status === 429 || outcome.status >= 500;
          const later = retryable ? comeBackLater(opts.provider, outcome) : null;
          if (later) return yield* fail(`http_${outcome.status}`, `${message}; ${later}`);
          if (!retryable || last) return yield* fail(`http_${outcome.status}`, message);
          const wait = outcome.retryAfter ?? jittered(delay * 2 ** (n - 1));
          const what = outcome.status === 429
            ? "rate limited"
            : `${opts.provider} returned HTTP ${outcome.status}`;
          yield { type: "status", message: `${what}, retrying in ${formatSeconds(wait)}` };
          if (!(await sleep(wait * 1000, signal))) break;
          continue;
        }
        default:
          return yield* fail(...terminalFailure(opts, outcome));
      }
      // Only an aborted retry sleep gets here.
      yield { type: "done", reason: "cancelled" };
      return;
    }
  } catch (err) {
    yield* fail("internal", `Streaming from ${opts.provider} failed: ${(err as Error).message}`);
  }
}

/**
 * When to come back after a retryable HTTP error whose Retry-After is past what svc waits; null
 * when svc waits it out (or none was given).
 */
function comeBackLater(
  provider: string,
  outcome: { status: number; retryAfter: number | null },
): string | null {
  if (outcome.retryAfter === null || outcome.retryAfter <= MAX_RETRY_AFTER) return null;
  // Retrying sooner than asked would only be refused again: say when to come back.
  const at = new Date(Date.now() + outcome.retryAfter * 1000).toISOString()
    .replace(/\.\d+Z$/, "Z");
  const what = outcome.status === 429 ? "the rate limit resets" : `${provider} asks to retry`;
  return `${what} in ${formatWait(outcome.retryAfter)} (at ${at}), later than ` +
    `svc waits (${MAX_RETRY_AFTER}s); try again then`;
}

/** The error code and message of an outcome that no retry follows. */
function terminalFailure(
  opts: ChatClientOptions,
  outcome: Extract<AttemptOutcome, { kind: "network" | "stall" | "provider_error" | "oversized" }>,
): [string, string] {
  switch (outcome.kind) {
    case "network":
      return ["network", `Could not reach ${opts.provider} at ${opts.baseUrl}: ${outcome.detail}`];
    case "stall":
      return [
        "stall",
        `${opts.provider} sent ${outcome.pings ? "only keep-alives" : "no output"} for ${
          formatSeconds(outcome.seconds)
        }; the stream was abandoned`,
      ];
    case "provider_error":
      return [
        isContextOverflow(outcome.detail) ? CONTEXT_OVERFLOW : "provider_error",
        `${opts.provider} reported an error: ${outcome.detail}`,
      ];
    case "oversized":
      return [
        "stream_oversized",
        `${opts.provider} sent more than svc accepts: ${outcome.detail}; the stream was abandoned`,
      ];
  }
}
