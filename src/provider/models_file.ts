/** `~/.config/svc/models.json`: the approved-model history, keyed by (provider, model). */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";

/** One approved model; the file holds no keys or base addresses. */
export interface ApprovedModel {
  provider: string;
  model: string;
  /** ISO timestamps. */
  added_at: string;
  last_used: string;
  /**
   * Whether the model takes images in prompts and tool results: set in the file, it overrides
   * what the backend reports (docs/providers.md#images).
   */
  images?: boolean;
}

/** Where the file lives; `dir` defaults to `~/.config/svc` (from HOME). */
export interface ModelsOptions {
  dir?: string;
}

/** Path of models.json. */
export function modelsPath(options: ModelsOptions = {}): string {
  return join(options.dir ?? globalConfigDir(), "models.json");
}

/** Loads the history; a corrupt file yields no entries and a warning naming its path. */
export async function loadApprovedModels(
  options: ModelsOptions = {},
): Promise<{ entries: ApprovedModel[]; warning?: string }> {
  const { value, warning } = await readJson(modelsPath(options), { private: true });
  return { entries: entriesOf(value), ...(warning ? { warning } : {}) };
}

/** Whether (provider, model) is in the history. */
export async function isApproved(
  provider: string,
  model: string,
  options: ModelsOptions = {},
): Promise<boolean> {
  const { entries } = await loadApprovedModels(options);
  return entries.some((e) => e.provider === provider && e.model === model);
}

/** The entry's `images` setting for (provider, model), or undefined when it has none. */
export async function imagesSetting(
  provider: string,
  model: string,
  options: ModelsOptions = {},
): Promise<boolean | undefined> {
  const { entries } = await loadApprovedModels(options);
  return entries.find((e) => e.provider === provider && e.model === model)?.images;
}

/**
 * last_used is kept to the minute: a model used again within this time is not written again, so a
 * run of an approved model reads models.json and never rewrites it (a lock, a temp file, two
 * fsyncs and a rename on every `svc run`).
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Adds (provider, model) to the history, or bumps its last_used; returns the stored entry. */
export async function recordApproval(
  provider: string,
  model: string,
  options: ModelsOptions & { resolutionMs?: number } = {},
): Promise<ApprovedModel> {
  const resolution = options.resolutionMs ?? LAST_USED_RESOLUTION_MS;
  const known = (await loadApprovedModels(options)).entries
    .find((e) => e.provider === provider && e.model === model);
  const age = known ? Date.now() - Date.parse(known.last_used) : NaN;
  if (known && age >= 0 && age < resolution) return known;
  const now = new Date().toISOString();
  let stored: ApprovedModel = { provider, model, added_at: now, last_used: now };
  await updateJson(modelsPath(options), (current) => {
    const entries = entriesOf(current);
    const found = entries.find((e) => e.provider === provider && e.model === model);
    if (found) {
      found.last_used = now;
      stored = found;
    } else entries.push(stored);
    return entries;
  }, { private: true });
  return stored;
}

/**
 * Entries of a parsed file: the current list shape, or the old shape (an object keyed by model,
 * or entries carrying keys and base addresses) read for provider and model only.
 */
function entriesOf(value: unknown): ApprovedModel[] {
  const list: Array<[string | undefined, unknown]> = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : value && typeof value === "object"
    ? Object.entries(value)
    : [];
  const out: ApprovedModel[] = [];
  for (const [key, raw] of list) {
    if (!raw || typeof raw !== "object") continue;
    const r = raw as Record<string, unknown>;
    const model = typeof r.model === "string" ? r.model : key;
    if (typeof r.provider !== "string" || !model) continue;
    if (out.some((e) => e.provider === r.provider && e.model === model)) continue;
    const stamp = (v: unknown) => (typeof v === "string" ? v : "");
    out.push({
      provider: r.provider,
      model,
      added_at: stamp(r.added_at),
      last_used: stamp(r.last_used),
      ...(typeof r.images === "boolean" ? { images: r.images } : {}),
    });
  }
  return out;
}
