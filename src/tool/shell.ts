/**
 * Shell commands for tools with the `run` permission: `bash -c` in the worktree with a scrubbed
 * environment (no secrets, no svc variables, no shell start-up hooks), rendered as exit code,
 * stdout and stderr.
 */
import type { TerminalRunner, ToolContext, ToolOutput } from "./types.ts";
import {
  limitReached,
  planCommand,
  type SandboxSettings,
  sandboxSettings,
} from "../sandbox/mod.ts";
import { type ProcessResult, runProcess } from "./process.ts";
import { outputStatus } from "./output_status.ts";
import { which } from "../util/which.ts";
export { which };

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

/** The shell `runShell` runs commands with: bash where it is on PATH, else sh. */
export function shellProgram(): string {
  return shell ??= which("bash") ?? "sh";
}

/** Options of `runShell`. */
export interface ShellOptions {
  cwd: string;
  /** The worktree (writable in the sandbox's workspace-write mode). */
  worktree: string;
  /** The sandbox and limits the command runs under (`commandSandbox(ctx)`). */
  sandbox: SandboxSettings;
  timeoutS?: number;
  signal?: AbortSignal;
  /** Hears the command's latest output line while it runs long (`outputStatus`). */
  status?: (line: string) => void;
  /**
   * The front-end's terminal (an ACP editor's): a command the OS sandbox would not hold runs there
   * instead; a sandboxed command always runs in svc's sandbox.
   */
  terminal?: TerminalRunner;
}

/** The sandbox settings of commands a tool runs with `ctx`. */
export function commandSandbox(ctx: Pick<ToolContext, "config" | "worktree">): SandboxSettings {
  return sandboxSettings(ctx.config, ctx.worktree);
}

/**
 * Runs `command` with `bash -c` (falling back to `sh -c`) inside the OS sandbox with its limits,
 * and returns the rendered result; a command the sandbox settings refuse never starts.
 */
export async function runShell(command: string, options: ShellOptions): Promise<ToolOutput> {
  const timeoutS = clampTimeout(options.timeoutS);
  const plan = await planCommand({ command: shellProgram(), args: ["-c", command] }, {
    settings: options.sandbox,
    worktree: options.worktree,
    cwd: options.cwd,
    timeoutS,
    env: scrubEnv(),
  });
  if (!plan.ok) return { content: plan.error, ok: false };
  const planned = plan.command;
  if (options.terminal && !planned.sandboxed) {
    await planned.cleanup();
    return await inTerminal(options.terminal, command, {
      options,
      timeoutS,
      notice: planned.notice,
    });
  }
  let result: ProcessResult;
  const lines = options.status && outputStatus(options.status);
  try {
    result = await runProcess(planned.command, planned.args, {
      cwd: options.cwd,
      env: planned.env,
      timeoutMs: timeoutS * 1000,
      signal: options.signal,
      onOutput: lines ? (chunk) => lines.push(chunk) : undefined,
    });
  } finally {
    lines?.stop();
    await planned.cleanup();
  }
  const notes = [planned.notice, limitReached(result, planned.limits)].filter((line) =>
    line !== undefined
  );
  return renderResult(result, timeoutS, notes);
}

/**
 * An unsandboxed command in the front-end's terminal, rendered as `runShell` renders its own (the
 * terminal's output is stdout and stderr together). The terminal has the editor's environment:
 * the variables svc keeps from commands as secrets are set empty there.
 */
async function inTerminal(
  terminal: TerminalRunner,
  command: string,
  how: { options: ShellOptions; timeoutS: number; notice?: string },
): Promise<ToolOutput> {
  const { options, timeoutS } = how;
  const secrets = Object.entries(Deno.env.toObject()).filter(([name, value]) =>
    SECRET_NAME.test(name) || name.startsWith("SVC_") || URL_WITH_PASSWORD.test(value)
  );
  const { output, ...ended } = await terminal({
    program: shellProgram(),
    args: ["-c", command],
    cwd: options.cwd,
    env: Object.fromEntries(secrets.map(([name]) => [name, ""])),
    timeoutS,
    signal: options.signal ?? new AbortController().signal,
  });
  return renderResult(
    { ...ended, stdout: output, stderr: "" },
    timeoutS,
    how.notice ? [how.notice] : [],
  );
}

/** The timeout in seconds: default 120, hard clamp 600. */
export function clampTimeout(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return DEFAULT_TIMEOUT_S;
  return Math.min(seconds, MAX_TIMEOUT_S);
}

/** `exit code N`, then `stdout:` and `stderr:` sections when they hold anything. */
export function renderResult(
  result: ProcessResult,
  timeoutS: number,
  notes: string[] = [],
): ToolOutput {
  const lines: string[] = [...notes];
  const limited = notes.some((line) => line.startsWith("resource limit"));
  if (result.timedOut) lines.push(`timed out after ${timeoutS} s; process group killed`);
  else if (result.cancelled) lines.push("cancelled; process group killed");
  lines.push(`exit code ${result.code}`);
  if (result.stdout) lines.push("stdout:", result.stdout.replace(/\n$/, ""));
  if (result.stderr) lines.push("stderr:", result.stderr.replace(/\n$/, ""));
  const failed = result.timedOut || result.cancelled || result.code === -1 || limited;
  return failed ? { content: lines.join("\n"), ok: false } : { content: lines.join("\n") };
}
