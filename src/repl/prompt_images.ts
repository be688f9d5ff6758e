/**
 * Whether a prompt's images (pasted, or `@image.png` mentions) can go to the engine's model: asked
 * before the turn starts, so a refused prompt sends nothing, stores nothing in the session, and
 * goes back into the input. The words are the engine's (Engine.refuseImages) with the
 * REPL's own way out added. The REPL imports this only for a prompt with images.
 */
import type { Engine } from "../runtime/mod.ts";
import type { ToolImage } from "../tool/types.ts";
import { MAX_PROMPT_IMAGES } from "../tool/images.ts";

/** Why `images` cannot go with a prompt to `engine`'s model (what to do included), or null. */
export async function imagesRefusal(
  engine: Engine,
  images: readonly ToolImage[],
): Promise<string | null> {
  const why = await engine.refuseImages(images);
  if (!why) return null;
  return images.length > MAX_PROMPT_IMAGES
    ? `${why}; delete some of their placeholders or mentions`
    : `${why}. /model switches to another model`;
}
