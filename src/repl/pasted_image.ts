/**
 * Pasted image paths (a file dragged onto the terminal pastes its path): when every path of a
 * paste names an existing file and each is an image, the images go into the input as placeholders
 * (Editor.attachImages). Reading them is the user's own act, as `svc run --image` is: no policy
 * applies and the file may be outside the worktree (an `@path` mention is read by file_read,
 * through the policy). Anything else is pasted as the text it is.
 */
import type { ToolImage } from "../tool/types.ts";
import { readImageFile } from "../tool/images.ts";
import { join } from "../util/posix_path.ts";
import type { Editor } from "./editor.ts";
import type { KeyEvent } from "./keys.ts";
import { pastedPaths } from "./paste_path.ts";

/** What a paste turned out to be: images (none: paste the text), and why an image was not read. */
export interface PastedImages {
  images: ToolImage[];
  warning?: string;
}

/** A name that says it is an image (its bytes decide; the name only decides whether to warn). */
const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The images the paste `text` names; `cwd` resolves relative paths, `home` `~/`. No images when a
 * part of it is not a path to an existing file, or a file is not an image.
 */
export async function pastedImages(
  text: string,
  options: { cwd: string; home?: string },
): Promise<PastedImages> {
  const paths = pastedPaths(text);
  if (!paths) return { images: [] };
  const images: ToolImage[] = [];
  for (const typed of paths) {
    const path = resolve(typed, options);
    if (path === null || !await isFile(path)) return { images: [] };
    try {
      images.push(await readImageFile(path));
    } catch (err) {
      const warning = IMAGE_NAME.test(path) ? `not attached: ${(err as Error).message}` : undefined;
      return { images: [], ...(warning ? { warning } : {}) };
    }
  }
  return { images };
}

function resolve(path: string, options: { cwd: string; home?: string }): string | null {
  if (path.startsWith("~/")) return options.home ? join(options.home, path.slice(2)) : null;
  return path.startsWith("/") ? path : join(options.cwd, path);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** What pasting into the REPL's input needs. */
export interface PasteHost {
  readonly editor: Editor;
  readonly runtime: { worktree: string } | null;
  warn(text: string): void;
}

/** Pastes `key` (a paste of paths) into the input: image files as placeholders, else the text. */
export async function pasteImages(host: PasteHost, key: KeyEvent): Promise<void> {
  const cwd = host.runtime?.worktree ?? Deno.cwd();
  const found = await pastedImages(key.text ?? "", { cwd, home: Deno.env.get("HOME") });
  if (found.warning) host.warn(found.warning);
  if (found.images.length) host.editor.attachImages(found.images);
  else host.editor.handle(key);
}
