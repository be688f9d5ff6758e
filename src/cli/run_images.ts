/**
 * The images of `svc run --image <file>`: at most MAX_PROMPT_IMAGES, each read and checked by
 * readImageFile (a PNG, JPEG, GIF or WebP of at most 5 MiB, a regular file: a FIFO, a device or a
 * folder is refused by its type before it is opened, so nothing blocks on it).
 */
import { MAX_PROMPT_IMAGES, readImageFile } from "../tool/images.ts";
import type { ToolImage } from "../tool/types.ts";

/** The images the `--image` paths name, or the usage problem with them (naming the file). */
export async function promptImages(
  paths: readonly string[] | undefined,
): Promise<{ images: ToolImage[] } | { problem: string }> {
  if (!paths?.length) return { images: [] };
  if (paths.length > MAX_PROMPT_IMAGES) {
    return {
      problem: `--image given ${paths.length} times; a prompt may carry at most ` +
        `${MAX_PROMPT_IMAGES} images`,
    };
  }
  const images: ToolImage[] = [];
  // readImageFile names the file in its message.
  for (const path of paths) {
    try {
      images.push(await readImageFile(path));
    } catch (err) {
      return { problem: `--image: ${(err as Error).message}` };
    }
  }
  return { images };
}
