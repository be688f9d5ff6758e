/**
 * Agent logs, `<dir>/.svc/logs/<name>.log`. The supervisor opens the file (append mode) and hands
 * it to the agent as its stdout and stderr, so the output lands there without passing through
 * the supervisor and keeps landing there when the supervisor restarts and adopts the agent. The
 * supervisor adds its own lines (`[fleet <time>] ...`) and rotates the file by size: it copies
 * it to `<name>.log.1` (the older copy moves to `.2`) and truncates it in place, which the
 * agent's append-mode descriptor follows (copy-truncate; a line written between the copy and the
 * truncation can be lost).
 */
import { closeSync, openSync } from "node:fs";
import { dirname } from "../util/posix_path.ts";
import { concatBytes } from "../util/byte_list.ts";

/** Rotated copies kept beside the log (`.1` newest). */
export const ROTATED_COPIES = 2;

/** Opens `path` for appending (creating its folder); the caller closes the descriptor. */
export async function openLogFd(path: string): Promise<number> {
  await Deno.mkdir(dirname(path), { recursive: true });
  return openSync(path, "a", 0o600);
}

export { closeSync as closeLogFd };

/** Appends one supervisor line to an agent's log; never throws (a log must not stop supervision). */
export async function logLine(path: string, text: string, now = new Date()): Promise<void> {
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, `[fleet ${now.toISOString()}] ${text}\n`, {
      append: true,
      mode: 0o600,
    });
  } catch {
    // A full disk or a removed folder: the state file still says what happened.
  }
}

/** Rotates `path` when it is larger than `maxBytes`; true when it did. */
export async function rotateIfLarge(path: string, maxBytes: number): Promise<boolean> {
  let size: number;
  try {
    size = (await Deno.stat(path)).size;
  } catch {
    return false;
  }
  if (size <= maxBytes) return false;
  for (let n = ROTATED_COPIES - 1; n >= 1; n--) {
    await Deno.rename(`${path}.${n}`, `${path}.${n + 1}`).catch(() => {});
  }
  await Deno.copyFile(path, `${path}.1`);
  await Deno.truncate(path, 0);
  return true;
}

/** The last `lines` lines of a file (fewer when it has fewer), read from the end in chunks. */
export async function tailLines(path: string, lines: number): Promise<string[]> {
  if (lines <= 0) return [];
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    const chunk = 64 * 1024;
    const parts: Uint8Array[] = [];
    let position = size;
    let newlines = 0;
    while (position > 0 && newlines <= lines) {
      const length = Math.min(chunk, position);
      position -= length;
      const buffer = new Uint8Array(length);
      await file.seek(position, Deno.SeekMode.Start);
      let read = 0;
      while (read < length) {
        const n = await file.read(buffer.subarray(read));
        if (n === null) break;
        read += n;
      }
      parts.unshift(buffer.subarray(0, read));
      newlines += buffer.subarray(0, read).filter((b) => b === 10).length;
    }
    const text = new TextDecoder().decode(concatBytes(parts));
    const all = text.split("\n");
    if (all.at(-1) === "") all.pop();
    return all.slice(-lines);
  } finally {
    file.close();
  }
}

/**
 * Follows a file from byte `offset`, calling `write` with each new piece, until `signal` aborts.
 * A file that shrinks (rotated) is followed from its start again.
 */
export async function followFile(
  path: string,
  { offset, write, signal, pollMs = 250 }: {
    offset: number;
    write: (text: string) => void;
    signal: AbortSignal;
    pollMs?: number;
  },
): Promise<void> {
  const decoder = new TextDecoder();
  let position = offset;
  while (!signal.aborted) {
    let size = position;
    try {
      size = (await Deno.stat(path)).size;
    } catch {
      // not there right now (between rotations): wait for it
    }
    if (size < position) position = 0;
    if (size > position) {
      const file = await Deno.open(path, { read: true });
      try {
        await file.seek(position, Deno.SeekMode.Start);
        const buffer = new Uint8Array(Math.min(size - position, 1 << 20));
        const n = await file.read(buffer);
        if (n) {
          position += n;
          write(decoder.decode(buffer.subarray(0, n), { stream: true }));
        }
      } finally {
        file.close();
      }
      continue;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}

/** Rotates agent `name`'s log at `path` past `maxBytes`, noting it there; a failure is logged. */
export async function rotateAgentLog(
  name: string,
  { path, maxBytes, log }: { path: string; maxBytes: number; log: (line: string) => void },
): Promise<void> {
  try {
    if (await rotateIfLarge(path, maxBytes)) {
      await logLine(path, `log rotated (over ${maxBytes} bytes)`);
    }
  } catch (err) {
    log(`svc fleet: ${name}: cannot rotate ${path}: ${(err as Error).message}`);
  }
}
