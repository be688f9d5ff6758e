/**
 * The context window a backend reports for a model, probed once per process and backend: the
 * model's entry of `GET /v1/models` (`context_length` as OpenRouter and vLLM-style servers give it,
 * vLLM's `max_model_len`, `context_window`), else llama.cpp's `GET /props`
 * (`default_generation_settings.n_ctx`). Null when neither says; the engine then uses config or
 * its default (docs/sessions.md#automatic-compaction).
 */
import { endpoint, requestHeaders } from "./http_util.ts";
import { trimBaseUrl } from "./table.ts";
import { readBodyCapped } from "../util/read_body.ts";

/** Where to ask. */
export interface WindowProbeTarget {
  baseUrl: string;
  apiKey: string;
  headers?: Record<string, string>;
}

/** Seconds each probe request may take; a slow backend is simply not asked again. */
const PROBE_TIMEOUT = 2;

/** A model list larger than this is not read (an aggregator's list is about 1 MiB). */
const MAX_PROBE_BODY = 8 << 20;

const probed = new Map<string, Promise<number | null>>();

/** The window `baseUrl` reports for `model` (cached for the process), or null. */
export function probeContextWindow(
  target: WindowProbeTarget,
  model: string,
): Promise<number | null> {
  const key = `${trimBaseUrl(target.baseUrl)}\n${model}`;
  let found = probed.get(key);
  if (!found) {
    found = probe(target, model).catch(() => null);
    probed.set(key, found);
  }
  return found;
}

async function probe(target: WindowProbeTarget, model: string): Promise<number | null> {
  const headers = requestHeaders(target.apiKey, target.headers);
  const listed = await getJson(endpoint(target.baseUrl, "models"), headers);
  const data = (listed as { data?: unknown })?.data;
  if (Array.isArray(data)) {
    const entry = data.find((m) => m?.id === model) ?? (data.length === 1 ? data[0] : undefined);
    const window = windowOfEntry(entry);
    if (window) return window;
  }
  const props = await getJson(`${trimBaseUrl(target.baseUrl)}/props`, headers);
  return positive(
    (props as { default_generation_settings?: { n_ctx?: unknown } })?.default_generation_settings
      ?.n_ctx ?? (props as { n_ctx?: unknown })?.n_ctx,
  );
}

/** The window a `/v1/models` entry names, or null. */
export function windowOfEntry(entry: unknown): number | null {
  if (!entry || typeof entry !== "object") return null;
  const e = entry as Record<string, unknown>;
  return positive(e.context_length) ?? positive(e.max_model_len) ?? positive(e.context_window);
}

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT * 1000) });
    const { text, truncated } = await readBodyCapped(res, MAX_PROBE_BODY);
    return res.ok && !truncated ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function positive(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}
