/** Reading and crash-safe rewriting of the small JSON state files under ~/.config/svc. */
import { dirname } from "./posix_path.ts";
import { withFileLock, writeFileAtomic } from "./atomic.ts";
import { readTextCapped, UnreadableFileError } from "./fs.ts";
import { checkPrivate } from "./private_file.ts";

/** A parsed file, or undefined with a warning naming the path when it is corrupt. */
export interface JsonRead {
  value: unknown;
  /** Set when the file exists but does not parse; the value is then undefined. */
  warning?: string;
  /** The file is not a regular file or is over STATE_FILE_MAX_BYTES, so it was not read. */
  unreadable?: boolean;
}

/** providers.json and models.json are a few KiB; anything past this is not one of them. */
export const STATE_FILE_MAX_BYTES = 4 << 20;

/**
 * With `private`, the file is one of svc's own (keys, trust, approvals): it is read only when
 * no other user could have written it or its folder (private_file.ts), else UnsafeFileError.
 */
export interface JsonFileOptions {
  private?: boolean;
}

/**
 * Reads `path` as JSON; a missing file is undefined, a corrupt one is reported, never thrown.
 * A `private` file that another user could have written throws UnsafeFileError.
 */
export async function readJson(path: string, options: JsonFileOptions = {}): Promise<JsonRead> {
  if (options.private) checkPrivate(path);
  let text: string;
  try {
    text = (await readTextCapped(path, STATE_FILE_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { value: undefined };
    if (err instanceof UnreadableFileError) {
      return { value: undefined, warning: `${path} is ${err.message}`, unreadable: true };
    }
    return { value: undefined, warning: `Could not read ${path}: ${(err as Error).message}` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return {
      value: undefined,
      warning: `${path} is not valid JSON (${(err as Error).message}); it is ignored until saved`,
    };
  }
}

/**
 * Read-modify-write of a JSON file under its lock. A corrupt file is first copied aside to
 * `<path>.corrupt-<time>` (same mode), so saving never silently discards what it held. A
 * `private` file is checked (see JsonFileOptions) before its lock file is made and as it is read.
 */
export async function updateJson<T>(
  path: string,
  update: (current: unknown) => T,
  options: JsonFileOptions & { mode?: number } = {},
): Promise<{ result: T; warning?: string }> {
  const mode = options.mode ?? 0o644;
  if (options.private) checkPrivate(path);
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  return await withFileLock(path, async () => {
    const read = await readJson(path, options);
    let warning: string | undefined;
    if (read.warning) {
      const backup = `${path}.corrupt-${Date.now()}`;
      // A FIFO, device or oversized file is moved aside unread; a corrupt one is copied.
      if (read.unreadable) {
        await Deno.rename(path, backup);
        warning = `${read.warning}; moved it to ${backup} and wrote a new file`;
      } else {
        await Deno.copyFile(path, backup);
        warning = `${path} was not valid JSON; kept a copy at ${backup} and wrote a new file`;
      }
      await Deno.chmod(backup, mode).catch(() => {});
    }
    const result = update(read.value);
    await writeFileAtomic(path, JSON.stringify(result, null, 2) + "\n", { mode });
    await Deno.chmod(path, mode).catch(() => {}); // umask or an older file must not widen it
    return { result, warning };
  });
}
