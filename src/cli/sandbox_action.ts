/**
 * `svc sandbox status` and `svc sandbox run`: what the OS sandbox of a worktree's commands is, and
 * one command run in it as the run_command tool runs it (`runShell`), with the config loaded as
 * `svc run` loads it (global < local, trust applied).
 */
import { loadConfigReport } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { sandboxSettings } from "../sandbox/settings.ts";
import { sandboxStatus, statusText } from "../sandbox/status.ts";
import { runShell } from "../tool/shell.ts";
import { UsageError } from "./usage.ts";

/** Flags of `svc sandbox status`. */
export interface StatusFlags {
  path?: string;
  json?: boolean;
}

/** Flags of `svc sandbox run`. */
export interface RunFlags {
  path?: string;
  /** Seconds, already parsed. */
  timeout?: number;
}

/** Exit code of a command that never ran: refused by the sandbox settings, or not started. */
export const NOT_RUN_EXIT = 126;

/** Prints the sandbox status of the worktree (`--json`: as JSON). */
export async function printStatus(flags: StatusFlags): Promise<void> {
  const { worktree, config } = await worktreeConfig(flags.path);
  const status = await sandboxStatus(sandboxSettings(config, worktree), worktree);
  console.log(flags.json ? JSON.stringify(status, null, 2) : statusText(status));
}

/**
 * Runs `words`, joined with spaces into one command line (as ssh does), with `bash -c` in the
 * worktree's sandbox, prints what the model would read and returns the command's exit code
 * (NOT_RUN_EXIT when it never started).
 */
export async function runInSandbox(words: string[], flags: RunFlags): Promise<number> {
  if (words.length === 0 || words.join("").trim() === "") {
    throw new UsageError(
      "no command: give one after --, as in svc sandbox run -- ls -la",
    );
  }
  const { worktree, config } = await worktreeConfig(flags.path);
  const output = await runShell(words.join(" "), {
    cwd: worktree,
    worktree,
    sandbox: sandboxSettings(config, worktree),
    timeoutS: flags.timeout,
  });
  const code = /^exit code (-?\d+)$/m.exec(output.content);
  if (!code) {
    console.error(`svc sandbox run: ${output.content}`);
    return NOT_RUN_EXIT;
  }
  console.log(output.content);
  const exit = Number(code[1]);
  return exit < 0 || exit > 255 ? NOT_RUN_EXIT : exit;
}

async function worktreeConfig(path?: string): Promise<{ worktree: string; config: Config }> {
  const worktree = resolveWorktree(path);
  const { config, warnings } = await loadConfigReport(worktree);
  for (const warning of warnings) console.error(`warning: ${warning}`);
  return { worktree, config };
}
