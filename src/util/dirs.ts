import { join } from "node:path";

/** `~/.config/svc`, from HOME (USERPROFILE on Windows). */
export function globalConfigDir(): string {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  return join(home, ".config", "svc");
}

/** `<worktree>/.svc`. */
export function localDir(worktree: string): string {
  return join(worktree, ".svc");
}
