/**
 * A temp HOME (set as this process's HOME while `fn` runs) and a worktree: `global` becomes
 * `~/.config/svc/config.json`, `local` the worktree's `.svc/config.json`. Files importing this run
 * alone (scripts/test_files.ts): it changes the process's environment.
 */
export async function withWorktree(
  files: { global?: unknown; local?: unknown },
  fn: (worktree: string, home: string) => Promise<void>,
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
    await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
    if (files.global) {
      await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(files.global));
    }
    if (files.local) {
      await Deno.writeTextFile(`${worktree}/.svc/config.json`, JSON.stringify(files.local));
    }
    await fn(worktree, home);
  } finally {
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
}
