/**
 * A confined write without /proc/self/fd: the write runs in a bubblewrap mount namespace where
 * the whole file system is read-only but the root folder, so a folder swapped for a symbolic link
 * leading out while the write runs resolves to a read-only place and the write fails (EROFS),
 * reported as OutsideRootError. A small POSIX sh helper with GNU coreutils does the write: it
 * enters the folder once (every later step happens in that folder, whatever its path becomes),
 * writes stdin to a temp file there with the mode set at creation (`chmod` only for bits the
 * creation cannot give), fsyncs it, renames it over the file and fsyncs the folder.
 */
import { basename, dirname, join } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { outside } from "../util/outside_root_error.ts";
import { regularFileBits } from "../util/fs.ts";
import type { AtomicWriteOptions } from "../util/atomic_options.ts";

/**
 * The helper: $1 folder, $2 file name, $3 temp name, $4 make parents (1), $5 fsync the folder
 * (1), $6 umask for the temp file (empty: keep), $7 chmod after writing: empty, `=BITS` exactly,
 * or `&BITS` narrowed by the umask. It removes its temp file on any failure.
 */
const HELPER = `
if [ "$4" = 1 ] && [ ! -d "$1" ]; then mkdir -p -- "$1" || exit 1; fi
if ! cd -P -- "$1" 2>&-; then
  if [ -d "$1" ]; then echo "$1: Permission denied" >&2
  elif [ -e "$1" ]; then echo "$1: Not a directory" >&2
  else echo "$1: No such file or directory" >&2; fi
  exit 1
fi
case $7 in \\&*) m=$(umask) ;; esac
[ -z "$6" ] || umask "$6"
dd of="$3" conv=fsync status=none || { rm -f -- "$3"; exit 1; }
case $7 in
  =*) chmod "\${7#=}" "$3" ;;
  \\&*) chmod "$(printf %o $(( 0\${7#&} & ~0$m )))" "$3" ;;
esac || { rm -f -- "$3"; exit 1; }
mv -f -T -- "$3" "$2" || { rm -f -- "$3"; exit 1; }
if [ "$5" = 1 ]; then sync -- . 2>&-; fi
exit 0
`;

/** How writeInSandbox writes: writeFileAtomic's options, the root and bubblewrap's path. */
export interface SandboxedWriteOptions extends AtomicWriteOptions {
  /** The folder the write may not leave; the only writable place in the namespace. */
  root: string;
  /** bubblewrap's program (`sandboxKind().program`). */
  program: string;
  /**
   * Check the folder's path before starting bubblewrap (default true): a link already leading
   * out is refused without a process. Tests turn it off to show the namespace alone refuses.
   */
  checkPath?: boolean;
}

/**
 * Replaces `path` as writeFileAtomic does (temp file in the same folder, fsync, rename, fsync the
 * folder; `keepMode`, `mode` narrowed by the umask, `parents`), inside a bubblewrap namespace in
 * which only `options.root` is writable. A folder that leads outside the root (a symbolic link in
 * place before, or swapped in during the write) throws OutsideRootError and nothing outside is
 * created or changed; no temp file is left behind when the write fails.
 */
export async function writeInSandbox(
  path: string,
  data: string | Uint8Array,
  options: SandboxedWriteOptions,
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const root = await Deno.realPath(options.root);
  const given = dirname(path);
  const dir = canonicalPath(root, given);
  if (options.checkPath !== false && !isInside(root, dir)) throw outside(given, options.root);
  const kept = options.keepMode ? await regularFileBits(join(dir, basename(path))) : undefined;
  const tmp = `.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const [umask, chmod] = modeSteps(kept, options.mode ?? 0o644);
  const helperArgs = [
    dir,
    basename(path),
    tmp,
    options.parents ? "1" : "0",
    options.syncDir === false ? "0" : "1",
    umask,
    chmod,
  ];
  const said = await runHelper(options.program, root, { bytes, helperArgs });
  if (said === undefined) return;
  throw helperError(said, { path, dir: given, root: options.root });
}

/**
 * The helper's umask and chmod steps: a mode the creation can give (no x, setuid, setgid or
 * sticky bit) is set by the umask alone, without a chmod; a kept mode is exact, a new one is
 * narrowed by the process's umask.
 */
export function modeSteps(kept: number | undefined, mode: number): [string, string] {
  if (kept !== undefined) {
    if ((kept & ~0o666) === 0) return [(0o777 & ~kept).toString(8).padStart(3, "0"), ""];
    return ["077", `=${kept.toString(8)}`];
  }
  const bits = mode & 0o777;
  if ((bits & ~0o666) !== 0) return ["077", `&${bits.toString(8)}`];
  // Symbolic: removes what `mode` lacks from what the current umask allows.
  const lacking = ["u", "g", "o"].flatMap((who, i) => {
    const shift = 6 - 3 * i;
    const gone = ((bits >> shift) & 0o4 ? "" : "r") + ((bits >> shift) & 0o2 ? "" : "w");
    return gone ? [`${who}-${gone}`] : [];
  });
  return [lacking.join(","), ""];
}

/** Runs the helper in the namespace with `bytes` on stdin: undefined, or what it said failing. */
async function runHelper(
  program: string,
  root: string,
  { bytes, helperArgs }: { bytes: Uint8Array; helperArgs: string[] },
): Promise<string | undefined> {
  // A /proc of the namespace's own: the host's could let a link through /proc/<svc's pid>/root
  // reach the writable host tree. No private /dev: a link into it would write where nothing is
  // kept and report success; the host's, read-only and without devices, fails instead.
  const args = ["--ro-bind", "/", "/", "--proc", "/proc", "--bind", root, root];
  args.push("--unshare-all", "--die-with-parent", "--new-session", "--chdir", "/", "--");
  args.push("/bin/sh", "-c", HELPER, "sh", ...helperArgs);
  const child = new Deno.Command(program, {
    args,
    clearEnv: true,
    env: { PATH: `/usr/bin:/bin:${Deno.env.get("PATH") ?? ""}`, LC_ALL: "C" },
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  // A helper that failed early closes its stdin: its stderr says why, not the broken pipe.
  await writer.write(bytes).catch(() => {});
  await writer.close().catch(() => {});
  const { code, stderr } = await child.output();
  if (code === 0) return undefined;
  return new TextDecoder().decode(stderr).trim() || `exit code ${code}`;
}

const ERRNO_TEXT: [string, new (message: string) => Error][] = [
  ["No such file or directory", Deno.errors.NotFound],
  ["Permission denied", Deno.errors.PermissionDenied],
  ["Operation not permitted", Deno.errors.PermissionDenied],
  ["Not a directory", Deno.errors.NotADirectory],
  ["Is a directory", Deno.errors.IsADirectory],
  ["cannot overwrite directory", Deno.errors.IsADirectory],
  ["File exists", Deno.errors.AlreadyExists],
  ["Too many levels of symbolic links", Deno.errors.FilesystemLoop],
];

/** The helper's failure as the error a direct write would throw; EROFS as OutsideRootError. */
function helperError(said: string, where: { path: string; dir: string; root: string }): Error {
  if (said.includes("Read-only file system")) return outside(where.dir, where.root);
  const message = `cannot write ${where.path}: ${said}`;
  // `mkdir -p` fails with EEXIST only where a file is in the way of a folder.
  if (/^mkdir: .*File exists$/m.test(said)) return new Deno.errors.NotADirectory(message);
  for (const [text, DenoError] of ERRNO_TEXT) {
    if (said.includes(text)) return new DenoError(message);
  }
  return new Error(`${message} (in the bubblewrap sandbox of confined writes)`);
}
