/** Small HTTP helpers shared by the chat client: endpoints, Retry-After, error bodies, backoff. */
import { trimBaseUrl } from "./table.ts";
import { errorMessageOf } from "./error_shape.ts";

/** Longest wait honoured from a Retry-After header, in seconds; a longer one fails at once. */
export const MAX_RETRY_AFTER = 30;

/** `{base}/v1/{path}` for a base address with or without a trailing `/v1`. */
export function endpoint(baseUrl: string, path: string): string {
  return `${trimBaseUrl(baseUrl)}/v1/${path}`;
}

/** Request headers: JSON, the plugin or table headers, and the bearer key only when non-empty. */
export function requestHeaders(
  apiKey: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...extra };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/**
 * Seconds to wait from a Retry-After value (delta seconds or an HTTP date), else null. Not capped:
 * the caller fails at once past MAX_RETRY_AFTER rather than retrying before the limit resets.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, (at - now) / 1000);
}

/** A wait in human units: `45s`, `12m 5s`, `1h 30m`, `2d 3h`. */
export function formatWait(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  const [d, h, m] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60];
  if (d) return h ? `${d}d ${h}h` : `${d}d`;
  if (h) return m ? `${h}h ${m}m` : `${h}h`;
  return s % 60 ? `${m}m ${s % 60}s` : `${m}m`;
}

/** A one-line summary of an error body: the JSON error message when there is one, cut short. */
export function shortBody(text: string, max = 200): string {
  let summary = text;
  try {
    const json = JSON.parse(text);
    const message = errorMessageOf(json) ?? json?.message;
    if (typeof message === "string") summary = message;
  } catch {
    // Not JSON: an HTML error page (a proxy's 502) says it in its title, else in its text.
    if (/^\s*</.test(text) && /<\/[a-z]+>/i.test(text)) {
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
      summary = title?.trim() ? title : text.replace(/<[^>]*>/g, " ");
    }
  }
  summary = summary.replace(/\s+/g, " ").trim();
  return summary.length > max ? `${summary.slice(0, max - 1)}…` : summary;
}

/**
 * Keys shorter than this are masked only where they stand as a credential. They are placeholders
 * (`ollama`, `EMPTY`, `k`) more often than secrets, and they are also words: masking every
 * occurrence turned the provider name `ollama` into `***` and `key` into `***ey`.
 */
export const SHORT_KEY_CHARS = 8;

/** Characters that continue a token around a key (a key inside a longer token masks all of it). */
const TOKEN_CHAR = /[A-Za-z0-9_-]/;

/** Where a value stands as a credential: after `Bearer `, or after `api_key=`, `"token": "`, ... */
const CREDENTIAL_PREFIX = String.raw`(?:\b(?:bearer|basic)\s+|\b(?:authorization|api[-_]?key|` +
  String.raw`access[-_]?token|token|key|secret|password)["']?\s*[:=]\s*["']?(?:bearer\s+)?)`;

/**
 * `text` with the API key masked as `***`, so it never reaches messages or sessions. A key of
 * SHORT_KEY_CHARS or more is masked wherever it occurs, together with the rest of the token that
 * holds it (its URL-encoded and JSON-escaped spellings too); a shorter one only where it stands as
 * a credential (`Bearer k`, `"api_key": "k"`), so words that contain or equal it survive.
 */
export function redact(text: string, apiKey: string): string {
  if (!apiKey.trim()) return text;
  const forms = [...new Set([apiKey, encodeURIComponent(apiKey), apiKey.replaceAll("/", "\\/")])];
  let out = text;
  for (const form of forms) {
    out = apiKey.length >= SHORT_KEY_CHARS ? maskTokens(out, form) : maskCredential(out, form);
  }
  return out;
}

/** Replaces every token that contains `key` with `***`. */
function maskTokens(text: string, key: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, from)) {
    let start = at;
    while (start > from && TOKEN_CHAR.test(text[start - 1])) start--;
    let end = at + key.length;
    while (end < text.length && TOKEN_CHAR.test(text[end])) end++;
    out += `${text.slice(from, start)}***`;
    from = end;
  }
  return out + text.slice(from);
}

/** Replaces `key` where it is a whole token right after a credential label. */
function maskCredential(text: string, key: string): string {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(${CREDENTIAL_PREFIX})${escaped}(?![A-Za-z0-9_-])`, "gi");
  return text.replace(pattern, (_match, prefix: string) => `${prefix}***`);
}

/**
 * A backoff wait with jitter: between half and all of `seconds`, so clients that failed together
 * (one rate limit, one restarting server) do not all retry at the same instant.
 */
export function jittered(seconds: number, random: () => number = Math.random): number {
  return seconds * (0.5 + random() * 0.5);
}

/** Human seconds for status lines: `2s`, `0.5s`. */
export function formatSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(1))}s`;
}
