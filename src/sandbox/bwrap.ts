/**
 * The bubblewrap command line of a layout: the root read-only, a new /dev and a /proc of a new
 * PID namespace, every namespace new (the network too, unless shared), a private /tmp, the
 * writable binds, read-only binds over control files and denyWrite, secrets hidden last so no
 * bind can show them again; `--die-with-parent` and `--new-session` (no terminal injection).
 */
import type { SandboxLayout } from "./layout.ts";

/** bwrap's arguments up to and including `--`, starting in `cwd`; the command follows. */
export function bwrapArgs(layout: SandboxLayout, cwd: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  args.push("--unshare-all");
  if (layout.shareNetwork) args.push("--share-net");
  args.push("--die-with-parent", "--new-session");
  // /tmp first: a worktree inside the host's /tmp is bound again below it.
  args.push("--bind", layout.temp, "/tmp");
  if (layout.proxyBind) args.push("--ro-bind", layout.proxyBind.source, layout.proxyBind.target);
  for (const path of layout.writable) args.push("--bind", path, path);
  for (const path of layout.readOnly) args.push("--ro-bind", path, path);
  for (const path of layout.hiddenDirs) args.push("--tmpfs", path, "--remount-ro", path);
  for (const path of layout.hiddenFiles) args.push("--ro-bind", "/dev/null", path);
  args.push("--chdir", cwd, "--");
  return args;
}
