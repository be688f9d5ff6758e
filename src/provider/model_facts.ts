/**
 * What a backend reports about a model, probed once per process and backend: its context window
 * and whether it takes images. The model's entry of `GET /v1/models` first (`context_length` as
 * OpenRouter and vLLM-style servers give it, vLLM's `max_model_len`, `context_window`; OpenRouter's
 * `architecture.input_modalities`, LM Studio's `type: "vlm"`, a `capabilities` list or map naming
 * vision), then, for what the entry left unsaid, llama.cpp's `GET /props`
 * (`default_generation_settings.n_ctx`, `modalities.vision`). Null where neither says: the engine
 * then uses config or its default (docs/sessions.md#automatic-compaction), and images follow the
 * models file (docs/providers.md#images).
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

/** Each address is asked once per process, whichever fact is wanted first. */
const fetched = new Map<string, Promise<unknown>>();

/** The window `baseUrl` reports for `model` (cached for the process), or null. */
export async function probeContextWindow(
  target: WindowProbeTarget,
  model: string,
): Promise<number | null> {
  const window = windowOfEntry(await modelEntry(target, model));
  if (window !== null) return window;
  const props = await llamaProps(target);
  return positive(props?.default_generation_settings?.n_ctx ?? props?.n_ctx);
}

/** Whether `baseUrl` reports that `model` takes images (cached for the process), or null. */
export async function probeImageInput(
  target: WindowProbeTarget,
  model: string,
): Promise<boolean | null> {
  const images = imagesOfEntry(await modelEntry(target, model));
  if (images !== null) return images;
  const vision = (await llamaProps(target))?.modalities?.vision;
  return typeof vision === "boolean" ? vision : null;
}

/** The model's entry of `GET /v1/models` (the only entry when there is one), if any. */
async function modelEntry(target: WindowProbeTarget, model: string): Promise<unknown> {
  const listed = await getJson(target, endpoint(target.baseUrl, "models"));
  const data = (listed as { data?: unknown })?.data;
  if (!Array.isArray(data)) return undefined;
  return data.find((m) => m?.id === model) ?? (data.length === 1 ? data[0] : undefined);
}

/** llama.cpp's `GET /props`, if the server has it. */
function llamaProps(target: WindowProbeTarget) {
  return getJson(target, `${trimBaseUrl(target.baseUrl)}/props`) as Promise<
    {
      default_generation_settings?: { n_ctx?: unknown };
      n_ctx?: unknown;
      modalities?: { vision?: unknown };
    } | null
  >;
}

/** The window a `/v1/models` entry names, or null. */
export function windowOfEntry(entry: unknown): number | null {
  if (!entry || typeof entry !== "object") return null;
  const e = entry as Record<string, unknown>;
  return positive(e.context_length) ?? positive(e.max_model_len) ?? positive(e.context_window);
}

/** Whether a `/v1/models` entry says the model takes images; null when it does not say. */
export function imagesOfEntry(entry: unknown): boolean | null {
  if (!entry || typeof entry !== "object") return null;
  const e = entry as Record<string, unknown>;
  const architecture = e.architecture as Record<string, unknown> | undefined;
  const modalities = e.modalities as Record<string, unknown> | undefined;
  const inputs = architecture?.input_modalities ?? e.input_modalities ?? modalities?.input;
  if (Array.isArray(inputs)) return inputs.includes("image");
  if (typeof e.supports_vision === "boolean") return e.supports_vision;
  const capabilities = e.capabilities;
  if (Array.isArray(capabilities)) return capabilities.includes("vision");
  if (capabilities && typeof capabilities === "object") {
    const vision = (capabilities as Record<string, unknown>).vision;
    if (typeof vision === "boolean") return vision;
  }
  if (e.type === "vlm") return true;
  return null;
}

/** A GET's JSON answer, asked once per process and address; null on any failure. */
function getJson(target: WindowProbeTarget, url: string): Promise<unknown> {
  const key = `${url}\n${target.apiKey}`;
  let found = fetched.get(key);
  if (!found) {
    fetched.set(key, found = fetchJson(url, requestHeaders(target.apiKey, target.headers)));
  }
  return found;
}

async function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
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
