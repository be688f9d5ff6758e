/** Headers on every response: JSON, never cached, never sniffed. No CORS headers, ever. */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** An error response: every non-2xx body of svc's own routes is `{"error": "<message>"}`. */
export function fail(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return json({ error: message }, status, headers);
}

/** Whether a Content-Type header names `application/json` (parameters such as charset allowed). */
export function isJsonType(contentType: string | null): boolean {
  if (!contentType) return false;
  return contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
