import type { ToolImage } from "./types.ts";

/** Largest image a tool result carries (base64 grows it by a third). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The image types a tool result carries, by their leading bytes. */
const SIGNATURES: Array<[string, number[]]> = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["image/jpeg", [0xff, 0xd8, 0xff]],
  ["image/gif", [0x47, 0x49, 0x46, 0x38]],
];

/** The MIME type of an image by its first bytes (PNG, JPEG, GIF, WebP), or undefined. */
export function imageType(bytes: Uint8Array): string | undefined {
  for (const [type, magic] of SIGNATURES) {
    if (magic.every((b, i) => bytes[i] === b)) return type;
  }
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/**
 * The images of a tool output that crossed a boundary (the plugin sandbox's messages): each a
 * `{ data, mimeType }` pair of strings with an `image/` type; anything else is dropped.
 */
export function toolImages(value: unknown): ToolImage[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const images = value.flatMap((item) => {
    const { data, mimeType } = (item ?? {}) as Record<string, unknown>;
    return typeof data === "string" && typeof mimeType === "string" &&
        mimeType.startsWith("image/")
      ? [{ data, mimeType }]
      : [];
  });
  return images.length ? images : undefined;
}
