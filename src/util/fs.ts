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
 * Files up to this size are read on svc's own thread: an async file operation costs a round trip
 * through Deno's blocking-thread pool (about 0.1-0.2 ms each, four per file), which is most of
 * what reading a config, manifest or state file costs. Bigger files are read asynchronously so a
 * server's other requests keep moving.
 */
export const SYNC_READ_BYTES = 256 * 1024;

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
  const info = Deno.statSync(path);
  if (!info.isFile) throw new UnreadableFileError("not a regular file");
  if (info.size > maxBytes && !options.head) throw tooLarge(maxBytes, info.size);
  const small = info.size <= SYNC_READ_BYTES;
  const chunks: Uint8Array[] = [];
  let used = 0;
  // Reads stop one byte past the cap, even when the file grows after the stat.
  using file = small ? Deno.openSync(path, { read: true }) : await Deno.open(path, { read: true });
  while (used <= maxBytes) {
    const chunk = new Uint8Array(
      Math.min(maxBytes + 1 - used, Math.max(info.size, 1) + 1, 1 << 20),
    );
    const n = small ? file.readSync(chunk) : await file.read(chunk);
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

/** The permission bits of a regular file (not a link) at `path`, or undefined. */
export async function regularFileBits(path: string): Promise<number | undefined> {
  try {
    const info = await Deno.lstat(path);
    return info.isFile && info.mode !== null ? info.mode & 0o7777 : undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}
