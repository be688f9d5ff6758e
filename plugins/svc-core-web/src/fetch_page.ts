/**
 * Guarded page download: every hop of a redirect chain is re-checked by the SSRF guard and pinned
 * to its checked addresses; the body is capped in bytes and the whole call in time.
 */
import { contentKind, decodeText, detectCharset, mediaType, sniffKind } from "./content.ts";
import { checkTarget, type Resolver } from "./target.ts";

/** Caps and seams of one fetch; the defaults are the tool's limits. */
export interface FetchOptions {
  /** Cancels the fetch (the turn's signal). */
  signal?: AbortSignal;
  /** Total time for every hop, head and body (default 20 s). */
  timeoutMs?: number;
  /** Body bytes read before stopping (default 2 MB). */
  maxBytes?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Hosts that may point at blocked addresses: user-approved hosts, or a test server. */
  allowHosts?: readonly string[];
  /** DNS lookup; defaults to `Deno.resolveDns` (A and AAAA). */
  resolve?: Resolver;
  /** Root certificates (PEM) that replace the default ones for https; a test seam. */
  caCerts?: string[];
}

/** Default caps of web_fetch. */
export const FETCH_LIMITS = { timeoutMs: 20_000, maxBytes: 2 * 1024 * 1024, maxRedirects: 5 };

/** A downloaded page: final URL, media type, decoded body and whether the byte cap cut it. */
export interface RawPage {
  url: string;
  mediaType: string;
  kind: "html" | "text";
  body: string;
  truncated: boolean;
}

/** The page, or an error message written for the model. */
export type FetchResult = { ok: true; page: RawPage } | { ok: false; error: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Downloads `input` within the caps of `options`; never throws. */
export async function fetchPage(input: string, options: FetchOptions = {}): Promise<FetchResult> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, error: `Invalid URL: ${input}` };
  }
  const timeoutMs = options.timeoutMs ?? FETCH_LIMITS.timeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error("time cap")), timeoutMs);
  const signal = options.signal
    ? AbortSignal.any([options.signal, deadline.signal])
    : deadline.signal;
  const current = { url };
  try {
    return await follow(current, signal, options);
  } catch (err) {
    if (options.signal?.aborted) return { ok: false, error: "Fetch cancelled" };
    if (deadline.signal.aborted) {
      const seconds = timeoutMs / 1000;
      return { ok: false, error: `Fetching ${current.url.href} stopped after ${seconds} s` };
    }
    const message = (err as Error).message || String(err);
    return { ok: false, error: `Fetching ${current.url.href} failed: ${message}` };
  } finally {
    clearTimeout(timer);
  }
}

async function follow(
  current: { url: URL },
  signal: AbortSignal,
  options: FetchOptions,
): Promise<FetchResult> {
  const maxRedirects = options.maxRedirects ?? FETCH_LIMITS.maxRedirects;
  for (let hop = 0;; hop++) {
    const target = await checkTarget(current.url, { ...options, signal });
    if (!target.ok) return target;
    signal.throwIfAborted();
    // node:http, node:https and node:zlib load on the first fetch, not when svc starts.
    const { readCapped, requestPinned } = await import("./transport.ts");
    const response = await requestPinned(current.url, {
      addresses: target.addresses,
      signal,
      caCerts: options.caCerts,
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && location) {
      response.destroy();
      if (hop >= maxRedirects) {
        return {
          ok: false,
          error: `Stopped after ${maxRedirects} redirects at ${current.url.href}`,
        };
      }
      current.url = new URL(location, current.url);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      const reason = response.statusMessage ? ` ${response.statusMessage}` : "";
      return { ok: false, error: `HTTP ${status}${reason} from ${current.url.href}` };
    }
    const contentType = String(response.headers["content-type"] ?? "");
    let kind = contentKind(contentType);
    if (kind === "binary") {
      response.destroy();
      return binary(current.url, mediaType(contentType));
    }
    const body = await readCapped(response, options.maxBytes ?? FETCH_LIMITS.maxBytes);
    if (kind === "unknown") kind = sniffKind(body.bytes);
    if (kind === "binary" || kind === "unknown") {
      return binary(current.url, mediaType(contentType) || "unknown type");
    }
    return {
      ok: true,
      page: {
        url: current.url.href,
        mediaType: mediaType(contentType) || (kind === "html" ? "text/html" : "text/plain"),
        kind,
        body: decodeText(body.bytes, detectCharset(contentType, { bytes: body.bytes, kind })),
        truncated: body.capped,
      },
    };
  }
}

function binary(url: URL, type: string): FetchResult {
  return {
    ok: false,
    error: `${url.href} is binary content (${type}); web_fetch reads only HTML, text and JSON`,
  };
}
