/**
 * The bubblewrap command line of a layout: the root read-only, a new /dev and a /proc of a new
 * PID namespace, every namespace new (the network too, unless shared), a private /tmp, the
 * writable binds, read-only binds over control files and denyWrite, secrets hidden last so no
 * bind can show them again; `--die-with-parent` and `--new-session` (no terminal injection).
 */
import type { SandboxLayout } from "./layout.ts";
import { isInside } from "../util/canonical_path.ts";

/** bwrap's arguments up to and including `--`, starting in `cwd`; the command follows. */
export function bwrapArgs(layout: SandboxLayout, cwd: string): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  args.push("--unshare-all");
  if (layout.shareNetwork) args.push("--share-net");
  args.push("--die-with-parent", "--new-session");
  // /tmp first: a worktree inside the host's /tmp is bound again below it.
  args.push("--bind", layout.temp, "/tmp");
  for (const path of layout.tmpReadable ?? []) args.push("--ro-bind", path, path);
  if (layout.proxyBind) args.push("--ro-bind", layout.proxyBind.source, layout.proxyBind.target);
  // A hidden folder holding a writable path (a worktree under ~/.config/svc) is emptied first,
  // the writable path bound inside it, and only then made read-only: the rest stays hidden.
  const holds = (dir: string) => layout.writable.some((path) => isInside(dir, path));
  const outer = layout.hiddenDirs.filter(holds);
  for (const path of outer) args.push("--tmpfs", path);
  for (const path of layout.writable) args.push("--bind", path, path);
  for (const path of layout.readOnly) args.push("--ro-bind", path, path);
  for (const path of outer) args.push("--remount-ro", path);
  for (const path of layout.hiddenDirs.filter((dir) => !holds(dir))) {
    args.push("--tmpfs", path, "--remount-ro", path);
  }
  for (const path of layout.hiddenFiles) args.push("--ro-bind", "/dev/null", path);
  args.push("--chdir", cwd, "--");
  return args;
}
