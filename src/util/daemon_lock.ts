/**
 * One daemon per folder: an exclusive advisory lock (flock) on a lock file that also names its
 * holder. The kernel drops the lock when the holder exits, however it exits, so a crashed daemon
 * never leaves a stale lock behind and no pid has to be trusted to tell whether it still runs.
 */
import { dirname } from "./posix_path.ts";
import { delay } from "./time.ts";

/** Who holds a daemon lock, as written into the lock file by the holder. */
export interface DaemonHolder {
  pid: number;
  /** ISO time the holder took the lock. */
  started_at: string;
  /** What the holder is, for messages ("svc jobs daemon"). */
  command: string;
}

/** A held lock: `release()` closes it (idempotent); exiting the process releases it too. */
export interface DaemonLock {
  readonly holder: DaemonHolder;
  release(): void;
}

export type DaemonLockResult =
  | { lock: DaemonLock; heldBy?: undefined }
  | { lock?: undefined; heldBy: DaemonHolder | undefined };

async function readHolder(file: Deno.FsFile): Promise<DaemonHolder | undefined> {
  try {
    await file.seek(0, Deno.SeekMode.Start);
    const buf = new Uint8Array(4096);
    const n = await file.read(buf);
    if (!n) return undefined;
    const value = JSON.parse(new TextDecoder().decode(buf.subarray(0, n)));
    if (typeof value?.pid !== "number") return undefined;
    return {
      pid: value.pid,
      started_at: String(value.started_at ?? ""),
      command: String(value.command ?? ""),
    };
  } catch {
    return undefined;
  }
}

/**
 * Pauses between attempts to take a lock someone holds. `daemonHolder` asks by taking the lock
 * for a moment, so a daemon starting while another process asks (`svc fleet up --detach` polls
 * until its daemon holds the lock) would take the asker for a second daemon; a daemon that
 * really holds the lock keeps it through all of them, about half a second.
 */
const RETRY_MS = [5, 10, 20, 40, 80, 160, 200];

/**
 * Takes the lock at `path` for `command`, waiting only out the moment a process asking who holds
 * it (`daemonHolder`) has it. When another process (or another open of the same file in this
 * process) holds it, returns `heldBy` with what that holder wrote.
 */
export async function acquireDaemonLock(
  path: string,
  command: string,
): Promise<DaemonLockResult> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  let locked = false;
  try {
    locked = await file.tryLock(true);
    for (const ms of RETRY_MS) {
      if (locked) break;
      await delay(ms);
      locked = await file.tryLock(true);
    }
    if (!locked) {
      const heldBy = await readHolder(file);
      file.close();
      return { heldBy };
    }
    const holder: DaemonHolder = { pid: Deno.pid, started_at: new Date().toISOString(), command };
    await file.truncate(0);
    await file.seek(0, Deno.SeekMode.Start);
    await file.write(new TextEncoder().encode(JSON.stringify(holder) + "\n"));
    let open = true;
    return {
      lock: {
        holder,
        release() {
          if (!open) return;
          open = false;
          file.close();
        },
      },
    };
  } catch (err) {
    try {
      file.close();
    } catch { /* already closed */ }
    throw err;
  }
}

/**
 * The process holding the lock at `path`, or undefined when no process holds it (whatever the
 * file still says from an earlier holder).
 */
export async function daemonHolder(path: string): Promise<DaemonHolder | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true, write: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  try {
    if (await file.tryLock(true)) return undefined;
    return (await readHolder(file)) ?? { pid: 0, started_at: "", command: "unknown" };
  } finally {
    file.close();
  }
}
