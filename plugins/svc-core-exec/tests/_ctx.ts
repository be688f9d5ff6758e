/** Test helpers shared by the exec, git and dev plugin tests: a ToolContext and temp worktrees. */
import { ConfigSchema } from "../../../src/config/schema.ts";
import type { ToolContext } from "../../../src/plugin/api.ts";
import { toolContext } from "../../../src/tool/context.ts";

/** A headless ToolContext for `worktree`; `config` entries override the defaults. */
export function makeContext(
  worktree: string,
  options: { signal?: AbortSignal; config?: Record<string, unknown> } = {},
): ToolContext {
  return toolContext({
    worktree,
    signal: options.signal ?? new AbortController().signal,
    config: ConfigSchema.parse(options.config ?? {}),
    session: "test",
    headless: true,
    trusted: false,
  });
}

/** A canonical temp folder, removed by the returned disposer. */
export function tempWorktree(): { dir: string; [Symbol.dispose](): void } {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "svc-test-" }));
  return { dir, [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }) };
}

/** True while `pid` is a live (non-zombie) process. */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Text content of a tool result. */
export function text(result: string | { content: string }): string {
  return typeof result === "string" ? result : result.content;
}

/**
 * Host processes whose command line is exactly `words` (NUL-joined in /proc): how a test finds a
 * process started inside the sandbox, whose `$!` is a pid of the sandbox's own PID namespace.
 */
export function hostProcesses(words: string[]): number[] {
  const wanted = words.join("\0") + "\0";
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${entry.name}/cmdline`) !== wanted) continue;
      if (isAlive(Number(entry.name))) found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
