/** Test helper: real git repositories in temp folders. */

/** Runs git directly (no hardening) in `cwd`; throws on failure. */
export function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args,
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1" },
    stdin: "null",
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** A repository with one commit of a.txt, identity configured. */
export function makeRepo(dir: string): void {
  git(dir, "init", "-q", "-b", "main", ".");
  git(dir, "config", "user.email", "test@example.com");
  git(dir, "config", "user.name", "Test");
  Deno.writeTextFileSync(`${dir}/a.txt`, "one\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-q", "-m", "first");
}

/** True when `path` exists (even as a dangling link). */
export function present(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
