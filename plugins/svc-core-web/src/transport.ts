/**
 * One HTTP exchange over a connection pinned to addresses the guard already checked: node's
 * `lookup` hook answers with those addresses, so no second DNS query can rebind the host, while
 * the URL's host name still drives the Host header, TLS SNI and certificate verification.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { pipeline, type Readable } from "node:stream";
import zlib from "node:zlib";

/** Request headers sent with every fetch. */
export const REQUEST_HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; svc/0.27.0; +web_fetch)",
  accept: "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5",
  "accept-encoding": "gzip, deflate, br",
};

/** Sends a GET for `url` to one of `addresses`; resolves once the response head arrives. */
export function requestPinned(
  url: URL,
  { addresses, signal, caCerts }: {
    addresses: readonly string[];
    signal: AbortSignal;
    caCerts?: string[];
  },
): Promise<http.IncomingMessage> {
  const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const lookup = ((_host, options, callback) => {
    const cb = callback as (...args: unknown[]) => void;
    if ((options as { all?: boolean })?.all) cb(null, entries);
    else cb(null, entries[0].address, entries[0].family);
  }) as LookupFunction;
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: "GET",
      agent: false,
      lookup,
      signal,
      headers: REQUEST_HEADERS,
      ...(caCerts ? { ca: caCerts } : {}),
    }, resolve);
    request.on("error", reject);
    request.end();
  });
}

/** A body read up to a byte cap; `capped` says the cap cut it off. */
export interface CappedBody {
  bytes: Uint8Array;
  capped: boolean;
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  if (encoding === "" || encoding === "identity") return null;
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "deflate") return zlib.createUnzip();
  if (encoding === "br") return zlib.createBrotliDecompress();
  throw new Error(`Unsupported content encoding ${encoding}`);
}

/**
 * Reads a response body (decompressed, so a compression bomb meets the same cap) and stops at
 * `maxBytes`, destroying the connection; endless bodies end there.
 */
export async function readCapped(
  response: http.IncomingMessage,
  maxBytes: number,
): Promise<CappedBody> {
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
  let decoder: ReturnType<typeof decoderFor> = null;
  try {
    decoder = decoderFor(encoding);
  } catch (err) {
    response.destroy();
    throw err;
  }
  const stream: Readable = decoder ? pipeline(response, decoder, () => {}) : response;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let capped = false;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Uint8Array);
      total += (chunk as Uint8Array).length;
      // One byte past the cap proves there is more; a body of exactly maxBytes is complete.
      if (total > maxBytes) {
        capped = true;
        break;
      }
    }
  } finally {
    response.destroy();
    decoder?.destroy();
  }
  const bytes = new Uint8Array(Math.min(total, maxBytes));
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= bytes.length) break;
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return { bytes, capped };
}
