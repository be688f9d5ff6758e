/** Bounded one-shot calls: the non-streaming chat completion and the `GET /v1/models` probe. */
import { buildPayload } from "./payload.ts";
import { endpoint, formatSeconds, redact, requestHeaders, shortBody } from "./http_util.ts";
import { readBodyCapped } from "../util/read_body.ts";
import type { ChatRequest, NonStreamingResult } from "./types.ts";
import { normalizeUsage } from "./usage.ts";
import { errorMessageOf } from "./error_shape.ts";
import { originOf } from "./provider_fields.ts";

interface Connection {
  provider: string;
  baseUrl: string;
  apiKey: string;
  headers?: Record<string, string>;
  requestTimeout?: number;
}

const LIST_MODELS_TIMEOUT = 10;

/** A non-streaming answer or a model list past this size is refused, never held in memory. */
export const MAX_UNARY_BODY = 32 << 20;

class BodyTooLarge extends Error {}

/** Fetches with a deadline linked to `signal`; throws a readable Error on timeout or abort. */
async function fetchBounded(
  url: string,
  init: RequestInit,
  seconds: number,
  signal?: AbortSignal,
): Promise<{ status: number; text: string }> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => (timedOut = true, ctl.abort()), seconds * 1000);
  const onAbort = () => ctl.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw new Error("Request cancelled");
    const res = await fetch(url, { ...init, signal: ctl.signal });
    // An error body is only summarized, so its first KiBs are enough.
    const { text, truncated } = await readBodyCapped(res, res.ok ? MAX_UNARY_BODY : 4096);
    if (truncated && res.ok) {
      throw new BodyTooLarge(`The answer exceeded ${MAX_UNARY_BODY >> 20} MiB`);
    }
    return { status: res.status, text };
  } catch (err) {
    if (signal?.aborted) throw new Error("Request cancelled");
    if (timedOut) throw new Error(`No answer within ${formatSeconds(seconds)}`);
    if (err instanceof BodyTooLarge) throw err;
    throw new Error(`Could not connect: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** A bounded non-streaming chat completion; never throws, failures set `error`. */
export async function chatNonStreaming(
  conn: Connection,
  request: ChatRequest,
  signal?: AbortSignal,
): Promise<NonStreamingResult> {
  const where = `${conn.provider} at ${conn.baseUrl}`;
  try {
    const { status, text } = await fetchBounded(
      endpoint(conn.baseUrl, "chat/completions"),
      {
        method: "POST",
        headers: requestHeaders(conn.apiKey, conn.headers),
        body: JSON.stringify(
          buildPayload(conn.provider, request, {
            stream: false,
            origin: originOf(conn.provider, conn.baseUrl),
          }),
        ),
      },
      conn.requestTimeout ?? 60,
      signal,
    );
    if (status < 200 || status >= 300) {
      return fail(`${conn.provider} returned HTTP ${status}: ${shortBody(text)}`);
    }
    // deno-lint-ignore no-explicit-any -- an untyped answer, read field by field
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      return fail(`${conn.provider} answered with something other than JSON: ${shortBody(text)}`);
    }
    if (errorMessageOf(json) !== undefined) {
      return fail(`${conn.provider} reported an error: ${shortBody(text)}`);
    }
    const message = json?.choices?.[0]?.message;
    if (!message) return fail(`${conn.provider} answered without a message`);
    // A backend that echoes the request (its Authorization header included) must not store the key.
    const content = typeof message.content === "string" ? redact(message.content, conn.apiKey) : "";
    const usage = normalizeUsage(json.usage);
    return usage ? { content, usage } : { content };
  } catch (err) {
    return fail(`Chat request to ${where} failed: ${(err as Error).message}`);
  }

  function fail(error: string): NonStreamingResult {
    return { content: "", error: redact(error, conn.apiKey) };
  }
}

/** Model ids from `GET {base}/v1/models`; throws an Error with a readable message on failure. */
export async function listModels(conn: Connection, signal?: AbortSignal): Promise<string[]> {
  const url = endpoint(conn.baseUrl, "models");
  const what = `Listing models of ${conn.provider} at ${conn.baseUrl} failed`;
  let result: { status: number; text: string };
  try {
    result = await fetchBounded(
      url,
      {
        headers: requestHeaders(conn.apiKey, conn.headers),
      },
      LIST_MODELS_TIMEOUT,
      signal,
    );
  } catch (err) {
    throw new Error(redact(`${what}: ${(err as Error).message}`, conn.apiKey));
  }
  if (result.status < 200 || result.status >= 300) {
    throw new Error(
      redact(`${what}: HTTP ${result.status}: ${shortBody(result.text)}`, conn.apiKey),
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(result.text)?.data;
  } catch {
    throw new Error(`${what}: the answer is not JSON`);
  }
  if (!Array.isArray(data)) throw new Error(`${what}: the answer has no data list`);
  return data.map((m) => m?.id).filter((id): id is string => typeof id === "string");
}
