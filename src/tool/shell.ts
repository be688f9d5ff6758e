/**
 * Shell commands for tools with the `run` permission: `bash -c` in the worktree with a scrubbed
 * environment (no secrets, no svc variables, no shell start-up hooks), rendered as exit code,
 * stdout and stderr.
 */
import type { ToolOutput } from "./types.ts";
import { type ProcessResult, runProcess } from "./process.ts";

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|PRIVATE|COOKIE/i;
/**
 * Variables that make bash run code or change parsing before the command starts;
 * POSIXLY_CORRECT also changes how GNU tools read their options, which bash_allow relies on.
 */
const SHELL_HOOKS = new Set(
  "BASH_ENV ENV CDPATH GLOBIGNORE SHELLOPTS BASHOPTS PROMPT_COMMAND IFS PS4 POSIXLY_CORRECT"
    .split(" "),
);
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

/** Tells whether a variable must not reach a child process. */
export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || name.startsWith("SVC_") || SHELL_HOOKS.has(name) ||
    name.startsWith("BASH_FUNC_") || URL_WITH_PASSWORD.test(value);
}

/** A copy of `env` (default: the host environment) without secrets and shell hooks. */
export function scrubEnv(
  env: Record<string, string> = Deno.env.toObject(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!isSecretVariable(name, value)) out[name] = value;
  }
  return out;
}

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
  shell ??= which("bash") ?? "sh";
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

/** The absolute path of `name` on the host PATH, or null. */
export function which(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return null;
}
