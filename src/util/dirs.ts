import { isAbsolute, join } from "./posix_path.ts";

/**
 * `~/.config/svc`, from HOME (USERPROFILE on Windows). Without an absolute home svc refuses to
 * guess: a relative fallback would put keys, the model history and the trust list inside
 * whatever folder svc runs in, where a repository could supply its own trust list.
 */
export function globalConfigDir(): string {
  const home = Deno.env.get("HOME") || Deno.env.get("USERPROFILE") || "";
  if (!isAbsolute(home)) {
    throw new Error(
      `HOME is ${home ? `"${home}", not an absolute path` : "not set"}; svc keeps its global ` +
        "config, API keys and trust list in $HOME/.config/svc, so set HOME to your home folder",
    );
  }
  return join(home, ".config", "svc");
}

/** `<worktree>/.svc`. */
export function localDir(worktree: string): string {
  return join(worktree, ".svc");
}
