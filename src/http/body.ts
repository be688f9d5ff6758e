import { fail } from "./reply.ts";

/** Limits on reading one request body. */
export interface BodyLimits {
  /** Largest accepted body in bytes; larger is 413. */
  maxBytes: number;
  /** The whole body must arrive within this many milliseconds; slower is 408. */
  timeoutMs: number;
}

export type Read<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * Reads a request body under a size cap and a deadline. A declared Content-Length over the cap is
 * refused before reading; a body that grows past it (413) or arrives too slowly (408) is cut off.
 */
export async function readBody(request: Request, limits: BodyLimits): Promise<Read<Uint8Array>> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limits.maxBytes) return tooLarge(limits);
  if (!request.body) return { ok: true, value: new Uint8Array() };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), limits.timeoutMs);
  });
  try {
    while (true) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout") {
        reader.cancel().catch(() => {});
        return { ok: false, response: fail(408, "request body was not received in time") };
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limits.maxBytes) {
        reader.cancel().catch(() => {});
        return tooLarge(limits);
      }
      chunks.push(next.value);
    }
  } catch {
    return bad("request body could not be read");
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return { ok: true, value: chunks[0] };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, value: bytes };
}

/** Reads and parses a JSON body under `limits`; invalid UTF-8, empty or invalid JSON is 400. */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<Read<unknown>> {
  const body = await readBody(request, limits);
  if (!body.ok) return body;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body.value);
  } catch {
    return bad("request body is not valid UTF-8");
  }
  if (!text.trim()) return bad("request body is empty; send a JSON object");
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return bad("request body is not valid JSON");
  }
}

function bad(message: string): Read<never> {
  return { ok: false, response: fail(400, message) };
}

function tooLarge(limits: BodyLimits): Read<never> {
  return { ok: false, response: fail(413, `request body is larger than ${limits.maxBytes} bytes`) };
}
