/**
 * Where a warm svc listens: `~/.config/svc/warm/<build>.sock`, in svc's own folder (a repository
 * cannot write there), one socket per build so an updated svc never hands its run to old code.
 * Only an installed svc (the launcher, a build id) takes part; `SVC_WARM=0` turns it off.
 */
import { BUILD_ID } from "../util/build_id.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { launcherPath } from "../util/launcher.ts";
import { dirname, join } from "../util/path.ts";

/** The environment variable that turns warm runs off when set to 0. */
export const WARM_ENV = "SVC_WARM";

/** A Unix socket's path must fit `sockaddr_un` (104 bytes on macOS, 108 on Linux, with the NUL). */
const MAX_SOCKET_PATH = 103;

/**
 * The socket of this build's warm svc, or null when this svc does not take part: not installed
 * (the source tree has no build id, a compiled binary no launcher), turned off, on Windows, no
 * usable HOME, or a path too long for a socket. `create` makes the folder (mode 0700) when
 * missing. A folder others can enter or write, or that someone other than the owner of svc's
 * folder owns, is never used: whoever could put a socket there would receive the runs, their
 * environment included.
 */
export function warmSocketPath(options: { create?: boolean } = {}): string | null {
  if (BUILD_ID === null || !launcherPath() || Deno.build.os === "windows") return null;
  if (Deno.env.get(WARM_ENV) === "0") return null;
  let dir: string;
  try {
    dir = join(globalConfigDir(), "warm");
  } catch {
    return null;
  }
  const path = join(dir, `${BUILD_ID}.sock`);
  if (new TextEncoder().encode(path).length > MAX_SOCKET_PATH) return null;
  if (options.create) {
    try {
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      return null;
    }
  }
  return privateDirOwner(dir) === null ? null : path;
}

/**
 * The owner of `dir` when it is a directory (not a link) that nobody but its owner can enter or
 * write, and its owner is the owner of svc's own folder (`~/.config/svc`, its parent, which svc
 * already trusts with keys, the trust list and global plugins); null otherwise. (The process's own
 * user id would need `--allow-sys`, which svc does not ask for.)
 */
export function privateDirOwner(dir: string): number | null {
  try {
    const info = Deno.lstatSync(dir);
    const parent = Deno.lstatSync(dirname(dir));
    if (!info.isDirectory || !parent.isDirectory || info.uid === null) return null;
    return info.uid === parent.uid && ((info.mode ?? 0o777) & 0o077) === 0 ? info.uid : null;
  } catch {
    return null;
  }
}
