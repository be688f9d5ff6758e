/**
 * Saved sessions written straight into a worktree's `.svc/sessions`, as svc writes them: what
 * the continue, resume and fork tests start from without running turns first.
 */

/** Writes `<name>.json` with `turns` user/assistant pairs (`<name> qN` / `<name> aN`). */
export async function seedSession(
  worktree: string,
  options: { name: string; turns: number; mtime?: Date },
): Promise<string> {
  const { name, turns } = options;
  const at = new Date("2026-01-01T00:00:00Z").toISOString();
  const messages = [];
  for (let n = 1; n <= turns; n++) {
    messages.push({ role: "user", content: `${name} q${n}`, timestamp: at });
    messages.push({ role: "assistant", content: `${name} a${n}`, timestamp: at, model: "m" });
  }
  const dir = `${worktree}/.svc/sessions`;
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/${name}.json`;
  const doc = { name, created_at: at, updated_at: at, messages, errors: [], permissions: [] };
  await Deno.writeTextFile(path, JSON.stringify(doc));
  if (options.mtime) await Deno.utime(path, options.mtime, options.mtime);
  return path;
}

/** A date `minutes` before now. */
export function minutesAgo(minutes: number): Date {
  return new Date(Date.now() - minutes * 60_000);
}
