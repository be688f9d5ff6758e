import { concatBytes } from "./byte_list.ts";

/** Whether anything (a dangling symlink included) exists at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file svc refuses to read. The message completes "<file> is ...": `not a regular file`, or
 * `larger than the <cap> limit (<size> bytes)`.
 */
export class UnreadableFileError extends Error {
  override name = "UnreadableFileError";
}

/**
 * Reads a regular file as UTF-8 text, never more than `maxBytes`. A FIFO, device or folder is
 * refused before it is opened (opening a FIFO blocks, `/dev/zero` never ends), so a hostile
 * worktree cannot hang svc or fill its memory. A larger file is refused, or with `head` its
 * first `maxBytes` are returned and `truncated` is set. A missing file throws
 * `Deno.errors.NotFound`, as `Deno.readTextFile` does.
 */
export async function readTextCapped(
  path: string,
  maxBytes: number,
  options: { head?: boolean } = {},
): Promise<{ text: string; truncated: boolean }> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new UnreadableFileError("not a regular file");
  if (info.size > maxBytes && !options.head) throw tooLarge(maxBytes, info.size);
  const chunks: Uint8Array[] = [];
  let used = 0;
  // Reads stop one byte past the cap, even when the file grows after the stat.
  using file = await Deno.open(path, { read: true });
  while (used <= maxBytes) {
    const chunk = new Uint8Array(
      Math.min(maxBytes + 1 - used, Math.max(info.size, 1) + 1, 1 << 20),
    );
    const n = await file.read(chunk);
    if (n === null) break;
    chunks.push(chunk.subarray(0, n));
    used += n;
  }
  const truncated = used > maxBytes;
  if (truncated && !options.head) throw tooLarge(maxBytes, used);
  const bytes = concatBytes(chunks).subarray(0, Math.min(used, maxBytes));
  return { text: new TextDecoder().decode(bytes), truncated };
}

function tooLarge(maxBytes: number, size: number): UnreadableFileError {
  const limit = maxBytes >= 1 << 20
    ? `${maxBytes / (1 << 20)} MiB`
    : maxBytes >= 1024
    ? `${maxBytes / 1024} KiB`
    : `${maxBytes}-byte`;
  const seen = size > maxBytes + 1 ? `${size} bytes` : "grew past it while read";
  return new UnreadableFileError(`larger than the ${limit} limit (${seen})`);
}
