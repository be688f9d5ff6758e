/**
 * Long-lived processes svc starts for a model's use (an MCP server marked `sandbox: true`, a
 * plugin's process): planned like a shell command (`planCommand`: the OS sandbox and the limits
 * of `limits.command`), but with no CPU-time limit, as they live longer than any tool timeout. A
 * private temp folder is removed when its process ends (`cleanup`) or, at the latest, when svc
 * exits (the `unload` event, synchronously).
 */
import { type CommandLine, type Plan, planCommand, type SandboxSettings } from "../sandbox/mod.ts";
export type { CommandLine, Plan, PlannedCommand, SandboxSettings } from "../sandbox/mod.ts";
export { sandboxSettings } from "../sandbox/mod.ts";

/** Options of `planLongLived`. */
export interface LongLivedOptions {
  settings: SandboxSettings;
  /** The worktree: writable under workspace-write. */
  worktree: string;
  /** Where the process starts. */
  cwd: string;
  /** Its whole environment (TMPDIR is set to the sandbox's). */
  env: Record<string, string>;
}

/** How `line` starts as a long-lived process under `options.settings`, or why it may not. */
export async function planLongLived(line: CommandLine, options: LongLivedOptions): Promise<Plan> {
  const plan = await planCommand(line, { ...options, timeoutS: null });
  if (!plan.ok || !plan.command.temp) return plan;
  const forget = removeOnExit(plan.command.temp);
  const cleanup = plan.command.cleanup;
  plan.command.cleanup = async () => {
    forget();
    await cleanup();
  };
  return plan;
}

const temps = new Set<string>();
let listening = false;

/**
 * Removes the folder `temp` when svc exits unless the returned function was called first (its
 * process ended and its owner removed it).
 */
export function removeOnExit(temp: string): () => void {
  temps.add(temp);
  if (!listening) {
    listening = true;
    globalThis.addEventListener("unload", removeAll);
  }
  return () => temps.delete(temp);
}

function removeAll(): void {
  for (const temp of temps) {
    try {
      Deno.removeSync(temp, { recursive: true });
    } catch {
      // gone already, or still held by a process that outlives svc
    }
  }
  temps.clear();
}
