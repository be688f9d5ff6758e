/**
 * Why a prompt's images cannot go to an engine's model, for a front-end to refuse a request
 * before anything runs (nothing sent, no hook, no session record): the engine's own words
 * (src/engine/image_input.ts), which say what to do. The engine refuses the same turn anyway.
 */
import type { Engine } from "../engine/engine.ts";
import { imagesRefused } from "../engine/image_input.ts";
import type { ToolImage } from "../tool/types.ts";

/** The refusal of `images` by `engine`'s model (too many, or the model takes none), or null. */
export async function imageRefusal(
  engine: Engine,
  images: readonly ToolImage[],
): Promise<string | null> {
  return images.length ? await imagesRefused(engine.deps, images) : null;
}
