/**
 * The `images` of a POST /chat body (docs/serving.md#images): at most MAX_PROMPT_IMAGES, each a
 * `data:image/<type>;base64,...` URL string, or an object `{ "data": "<base64 or data: URL>",
 * "mime_type"?: "image/png", "name"?: "shot.png" }`. Each is checked by imageFromBase64: a PNG,
 * JPEG, GIF or WebP by its bytes, of at most 5 MiB, of the type it is declared as.
 */
import { imageFromBase64, MAX_PROMPT_IMAGES } from "../tool/images.ts";
import type { ToolImage } from "../tool/types.ts";

const OBJECT_FIELDS = new Set(["data", "mime_type", "name"]);
/** An image's `name`: a file name, no folder, nothing that moves a terminal's cursor. */
// deno-lint-ignore no-control-regex
const FILE_NAME = /^[^\x00-\x1f\x7f/]{1,128}$/;

/** The checked images, or the 400 message naming the bad one by its index. */
export function chatImages(value: unknown): ToolImage[] | string {
  if (!Array.isArray(value)) return "images must be an array";
  if (value.length > MAX_PROMPT_IMAGES) {
    return `images has ${value.length} entries; a prompt may carry at most ${MAX_PROMPT_IMAGES}`;
  }
  const images: ToolImage[] = [];
  for (const [index, item] of value.entries()) {
    const image = chatImage(item);
    if (typeof image === "string") return `images[${index}]: ${image}`;
    images.push(image);
  }
  return images;
}

function chatImage(item: unknown): ToolImage | string {
  if (typeof item === "string") {
    if (item.startsWith("data:")) return checked(item, {});
    return 'a string must be a data: URL (data:image/png;base64,...); send bare base64 as {"data"}';
  }
  if (!item || typeof item !== "object" || Array.isArray(item)) {
    return 'must be a data: URL string or an object {"data", "mime_type"}';
  }
  const fields = item as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !OBJECT_FIELDS.has(key));
  if (unknown) return `unknown field ${unknown}; expected data, mime_type and name`;
  const { data, mime_type: mimeType, name } = fields;
  if (typeof data !== "string") return "data must be a base64 string";
  if (mimeType !== undefined && typeof mimeType !== "string") return "mime_type must be a string";
  if (name !== undefined && (typeof name !== "string" || !FILE_NAME.test(name))) {
    return "name must be a file name of 1-128 characters (no slash, no control characters)";
  }
  return checked(data, { mimeType, name });
}

function checked(data: string, options: { mimeType?: string; name?: string }): ToolImage | string {
  if (data.startsWith("data:") && !/^data:[^;,]+;base64,/.test(data)) {
    return "a data: URL must be base64 (data:image/png;base64,...)";
  }
  try {
    return imageFromBase64(data, options);
  } catch (err) {
    return (err as Error).message;
  }
}
