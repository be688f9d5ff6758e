/**
 * Whether an engine's model takes images (docs/providers.md#images): the `images` setting of its
 * entry in models.json when there is one, else what the backend reports of the model
 * (model_facts.ts), else no. Asked only when a prompt or a tool result carries an image, so a turn
 * without one never reads the file again nor probes the backend.
 */
import { imagesSetting, modelsPath } from "../provider/models_file.ts";
import type { SessionMessage } from "../session/types.ts";
import type { ToolImage } from "../tool/types.ts";
import { imageLabel, MAX_PROMPT_IMAGES } from "../tool/images.ts";
import type { EngineDeps } from "./deps.ts";

/** The answer and where it came from. */
export interface ImageInput {
  accepted: boolean;
  /** `models.json`, `backend` (the backend reported it) or `unknown` (nothing said: no). */
  source: "models.json" | "backend" | "unknown";
}

const known = new WeakMap<EngineDeps, Promise<ImageInput>>();

/** Whether `deps`' model takes images (asked once per engine). */
export function imageInput(deps: EngineDeps): Promise<ImageInput> {
  let found = known.get(deps);
  if (!found) known.set(deps, found = lookUp(deps));
  return found;
}

async function lookUp(deps: EngineDeps): Promise<ImageInput> {
  const setting = await imagesSetting(deps.provider, deps.model).catch(() => undefined);
  if (setting !== undefined) return { accepted: setting, source: "models.json" };
  const reported = await deps.client.acceptsImages?.(deps.model) ?? null;
  if (reported !== null) return { accepted: reported, source: "backend" };
  return { accepted: false, source: "unknown" };
}

/** Why a prompt's `images` cannot be sent to `deps`' model, or null when they can. */
export async function imagesRefused(
  deps: EngineDeps,
  images: readonly ToolImage[],
): Promise<string | null> {
  if (images.length > MAX_PROMPT_IMAGES) {
    return `${images.length} images: a prompt may carry at most ${MAX_PROMPT_IMAGES}`;
  }
  const input = await imageInput(deps);
  if (input.accepted) return null;
  const ref = `${deps.provider}/${deps.model}`;
  const shown = images.map(imageLabel).join(", ");
  const why = input.source === "models.json"
    ? `its entry in ${modelsPath()} says "images": false`
    : input.source === "backend"
    ? "its backend reports it takes text only"
    : "its backend does not say it takes images";
  return `model ${ref} does not accept images (${why}), so ${shown} cannot be sent; use a model ` +
    `that does, or if this one does, set "images": true on its entry in ${modelsPath()} ` +
    `(docs/providers.md#images)`;
}

/** Whether any message of the log carries an image (then the model's answer is wanted). */
export function logHasImages(messages: readonly SessionMessage[]): boolean {
  return messages.some((m) => m.images?.length);
}
