/** Runs one shell command line in the worktree and renders the result for the model. */
import type { ToolOutput } from "../../../src/plugin/api.ts";
import { scrubEnv } from "./env.ts";
import { type ProcessResult, runProcess } from "./spawn.ts";

/** Default and maximum timeout of a shell command, in seconds. */
export const DEFAULT_TIMEOUT_S = 120;
export const MAX_TIMEOUT_S = 600;

let shell: string | undefined;

/** Options of `runShell`. */
export interface ShellOptions {
  cwd: string;
  timeoutS?: number;
  signal?: AbortSignal;
}

/** Runs `command` with `bash -c` (falling back to `sh -c`) and returns the rendered result. */
export async function runShell(command: string, options: ShellOptions): Promise<ToolOutput> {
  const timeoutS = clampTimeout(options.timeoutS);
  const spawn = {
    cwd: options.cwd,
    env: scrubEnv(),
    timeoutMs: timeoutS * 1000,
    signal: options.signal,
  };
  shell ??= findShell();
  const result = await runProcess(shell, ["-c", command], spawn);
  return renderResult(result, timeoutS);
}

/** The timeout in seconds: default 120, hard clamp 600. */
export function clampTimeout(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return DEFAULT_TIMEOUT_S;
  return Math.min(seconds, MAX_TIMEOUT_S);
}

/** `exit code N`, then `stdout:` and `stderr:` sections when they hold anything. */
export function renderResult(result: ProcessResult, timeoutS: number): ToolOutput {
  const lines: string[] = [];
  if (result.timedOut) lines.push(`timed out after ${timeoutS} s; process group killed`);
  else if (result.cancelled) lines.push("cancelled; process group killed");
  lines.push(`exit code ${result.code}`);
  if (result.stdout) lines.push("stdout:", result.stdout.replace(/\n$/, ""));
  if (result.stderr) lines.push("stderr:", result.stderr.replace(/\n$/, ""));
  const failed = result.timedOut || result.cancelled || result.code === -1;
  return failed ? { content: lines.join("\n"), ok: false } : { content: lines.join("\n") };
}

function findShell(): string {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    try {
      if (Deno.statSync(`${dir}/bash`).isFile) return `${dir}/bash`;
    } catch {
      // not here
    }
  }
  return "sh";
}
