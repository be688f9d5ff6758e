/** Content-type classification, binary sniffing and charset-aware decoding of fetched bodies. */

/** How a body is shown: converted from HTML, passed through as text, or refused. */
export type ContentKind = "html" | "text" | "binary" | "unknown";

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
]);

/** The media type without parameters, lower-cased (`text/html`). */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

/** Classifies a Content-Type header; `unknown` (absent or octet-stream) needs sniffing. */
export function contentKind(contentType: string): ContentKind {
  const type = mediaType(contentType);
  if (type === "" || type === "application/octet-stream") return "unknown";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type.startsWith("text/") || TEXT_TYPES.has(type)) return "text";
  if (type.endsWith("+json") || type.endsWith("+xml")) return "text";
  return "binary";
}

const MAGIC = [
  "\x89PNG",
  "%PDF",
  "GIF8",
  "PK\x03\x04",
  "\xFF\xD8\xFF",
  "\x1F\x8B",
  "RIFF",
  "\x7FELF",
];

/** Guesses the kind of a body without a usable Content-Type from its first bytes. */
export function sniffKind(bytes: Uint8Array): ContentKind {
  const sample = bytes.subarray(0, 4096);
  const head = String.fromCharCode(...sample.subarray(0, 8));
  if (MAGIC.some((magic) => head.startsWith(magic))) return "binary";
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return "binary";
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  if (control > sample.length / 100) return "binary";
  const start = new TextDecoder().decode(sample.subarray(0, 512)).trimStart().toLowerCase();
  return /^(<!doctype html|<html|<head|<body)/.test(start) ? "html" : "text";
}

/** The charset named by the Content-Type header or, for HTML, a `<meta>` tag near the top. */
export function detectCharset(
  contentType: string,
  { bytes, kind }: { bytes: Uint8Array; kind: ContentKind },
): string {
  const header = contentType.match(/charset\s*=\s*["']?([\w.:-]+)/i);
  if (header) return header[1];
  if (kind !== "html") return "utf-8";
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
  const meta = head.match(/<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i);
  return meta ? meta[1] : "utf-8";
}

/** Decodes `bytes` with `charset` (a BOM wins), falling back to UTF-8 for unknown labels. */
export function decodeText(bytes: Uint8Array, charset: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) charset = "utf-8";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) charset = "utf-16le";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) charset = "utf-16be";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
