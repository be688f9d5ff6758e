/**
 * Where a warm svc listens: `~/.config/svc/warm/<build>.sock`, in svc's own folder (a repository
 * cannot write there), one socket per build so an updated svc never hands its run to old code.
 * Only an installed svc (the launcher, a build id) takes part; `SVC_WARM=0` turns it off.
 */
import { BUILD_ID } from "../util/build_id.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { launcherPath } from "../util/launcher.ts";
import { join } from "../util/path.ts";

/** The environment variable that turns warm runs off when set to 0. */
export const WARM_ENV = "SVC_WARM";

/** A Unix socket's path must fit `sockaddr_un` (104 bytes on macOS, 108 on Linux, with the NUL). */
const MAX_SOCKET_PATH = 103;

/** The warm folder and this process's user and umask, as a file made there shows them. */
export interface WarmPlace {
  socket: string;
  uid: number;
  umask: number;
}

/**
 * This build's warm socket, or null when this svc does not take part: not installed (the source
 * tree has no build id, a compiled binary no launcher), turned off, on Windows, no usable HOME, a
 * path too long for a socket, or a warm folder that is not this user's alone (a directory, not a
 * link, owned by this user, that nobody else can enter or write: whoever could put a socket there
 * would receive the runs, their environment included). `create` makes the folder (mode 0700).
 *
 * The user id and umask come from a file made in the folder and removed (reading them directly
 * would need `--allow-sys`, which svc does not ask for); a warm svc runs only for a client of its
 * own user and umask.
 */
export function warmPlace(options: { create?: boolean } = {}): WarmPlace | null {
  if (!warmEligible()) return null;
  let dir: string;
  try {
    dir = join(globalConfigDir(), "warm");
  } catch {
    return null;
  }
  const socket = join(dir, `${BUILD_ID}.sock`);
  if (new TextEncoder().encode(socket).length > MAX_SOCKET_PATH) return null;
  try {
    if (options.create) Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = Deno.lstatSync(dir);
    if (!info.isDirectory || ((info.mode ?? 0o777) & 0o077) !== 0) return null;
    const me = probe(dir);
    return info.uid === me.uid ? { socket, ...me } : null;
  } catch {
    return null;
  }
}

/**
 * Whether this svc takes part in warm runs at all: installed (a build id and the launcher, which
 * a compiled binary does not have), not on Windows, and not turned off with `SVC_WARM=0`.
 */
export function warmEligible(): boolean {
  return BUILD_ID !== null && launcherPath() !== undefined && Deno.build.os !== "windows" &&
    Deno.env.get(WARM_ENV) !== "0";
}

/** The owner and permission bits of a file this process makes with mode 0777. */
function probe(dir: string): { uid: number; umask: number } {
  const path = join(dir, `.probe-${Deno.pid}-${Math.random().toString(36).slice(2)}`);
  Deno.openSync(path, { createNew: true, write: true, mode: 0o777 }).close();
  try {
    const info = Deno.lstatSync(path);
    if (info.uid === null || info.mode === null) throw new Error("no owner or mode");
    return { uid: info.uid, umask: ~info.mode & 0o777 };
  } finally {
    Deno.removeSync(path);
  }
}

/**
 * Variables read once when a process starts or first fetches (time zone, locale, Deno's own,
 * certificates, proxies): a warm svc started under other values would not honour the client's,
 * so it runs only for a client whose values are its own.
 */
export function startupVariable(name: string): boolean {
  return /^(TZ|LANG|LANGUAGE|LC_[A-Z]+)$/.test(name) || /^(DENO_|NODE_|SSL_CERT_)/.test(name) ||
    /_proxy$/i.test(name);
}
