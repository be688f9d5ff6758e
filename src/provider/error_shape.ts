// deno-lint-ignore-file no-explicit-any -- error bodies are untyped JSON, checked field by field
/**
 * The error message a server put in a JSON value, in every shape servers use: OpenAI's
 * `{"error":{"message":...}}`, Ollama's `{"error":"..."}`, vLLM's `{"object":"error","message":...}`,
 * an Anthropic-style `{"type":"error","error":{...}}`, FastAPI's `{"detail":"..."}` or
 * `{"detail":[{"msg":...}]}`, and Gemini's list `[{"error":{...}}]`. One reading for stream events,
 * JSON answers and HTTP error bodies.
 */

/** The message of an error value; undefined when `json` is not an error. */
export function errorMessageOf(json: unknown): string | undefined {
  if (Array.isArray(json)) return json.length ? errorMessageOf(json[0]) : undefined;
  if (!json || typeof json !== "object") return undefined;
  const obj = json as Record<string, any>;
  if (obj.error) return messageOf(obj.error);
  if (obj.object === "error" || obj.type === "error") return messageOf(obj);
  // A chunk never carries `detail`; a FastAPI server's refusal does, and nothing else.
  if (obj.detail !== undefined && obj.detail !== null && !("choices" in obj)) {
    return messageOf(obj.detail);
  }
  return undefined;
}

/** A readable message from an error value of any shape (string, object, list of problems). */
function messageOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const parts = value.map((item) => messageOf(item)).filter(Boolean);
    return parts.join("; ");
  }
  if (value && typeof value === "object") {
    const obj = value as Record<string, any>;
    for (const key of ["message", "msg", "detail", "error"]) {
      const inner = obj[key];
      if (typeof inner === "string" && inner) {
        // FastAPI names where the problem is: `body.messages: field required`.
        const where = key === "msg" && Array.isArray(obj.loc) ? `${obj.loc.join(".")}: ` : "";
        return where + inner;
      }
      if (inner && typeof inner === "object") return messageOf(inner);
    }
  }
  return JSON.stringify(value);
}
