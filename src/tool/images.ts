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

/** At most this many images go with one prompt (`svc run --image`, `POST /chat`, the REPL). */
export const MAX_PROMPT_IMAGES = 8;

/**
 * An image from its bytes, checked: a PNG, JPEG, GIF or WebP (by its leading bytes, not its name)
 * of at most MAX_IMAGE_BYTES. Throws an Error that says what is wrong with it, naming `name`.
 */
export function imageFromBytes(bytes: Uint8Array, name = "the image"): ToolImage {
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new Error(
      `${name} is ${mib(bytes.length)}; an image may be at most ${mib(MAX_IMAGE_BYTES)}`,
    );
  }
  const mimeType = imageType(bytes);
  if (!mimeType) throw new Error(`${name} is not a PNG, JPEG, GIF or WebP image`);
  return { data: bytes.toBase64(), mimeType };
}

/** Reads an image file for a prompt (`--image`, a pasted path); the Error says what went wrong. */
export async function readImageFile(path: string): Promise<ToolImage> {
  const name = path.split("/").pop() || path;
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new Error(`${path} is not a file`);
    if (info.size > MAX_IMAGE_BYTES) {
      throw new Error(
        `${path} is ${mib(info.size)}; an image may be at most ${mib(MAX_IMAGE_BYTES)}`,
      );
    }
    // At most one byte more than allowed: a file whose size says nothing (/proc) is cut there.
    bytes = await readAtMost(path, MAX_IMAGE_BYTES + 1);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(`${path}: no such file`);
    if (err instanceof Deno.errors.PermissionDenied) throw new Error(`${path}: permission denied`);
    throw err;
  }
  return { ...imageFromBytes(bytes, path), name };
}

/**
 * An image sent as base64 (`POST /chat`): plain base64, or a `data:<type>;base64,` URL. A named
 * type must be the one the bytes are. Throws an Error saying what is wrong.
 */
export function imageFromBase64(
  data: string,
  options: { mimeType?: string; name?: string } = {},
): ToolImage {
  const name = options.name ?? "the image";
  const url = /^data:([^;,]+);base64,/.exec(data);
  const declared = url?.[1] ?? options.mimeType;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(url ? data.slice(url[0].length) : data);
  } catch {
    throw new Error(`${name} is not valid base64`);
  }
  const image = imageFromBytes(bytes, name);
  if (declared && declared !== image.mimeType) {
    throw new Error(`${name} is declared ${declared} but its bytes are ${image.mimeType}`);
  }
  return { ...image, ...(options.name ? { name: options.name } : {}) };
}

/** The `data:` URL chat-completions backends take an image as. */
export function dataUrl(image: ToolImage): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** How an image is named to people: `shot.png (image/png, 1.2 MiB)`. */
export function imageLabel(image: ToolImage): string {
  const padding = image.data.endsWith("==") ? 2 : image.data.endsWith("=") ? 1 : 0;
  const bytes = Math.floor(image.data.length * 3 / 4) - padding;
  const size = bytes < 1024
    ? `${bytes} B`
    : bytes < 1 << 20
    ? `${(bytes / 1024).toFixed(1)} KiB`
    : mib(bytes);
  return `${image.name ?? "image"} (${image.mimeType}, ${size})`;
}

async function readAtMost(path: string, max: number): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const buffer = new Uint8Array(max);
  let length = 0;
  while (length < max) {
    const read = await file.read(buffer.subarray(length));
    if (read === null) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}
