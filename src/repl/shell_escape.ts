/**
 * `!command`: the user runs a shell command in the worktree themselves, without the model. It is
 * their own action, so no policy applies and nothing asks: it runs with their environment under
 * `sh -c`, in its own process group (Esc or Ctrl-C kills the group). The output is printed and
 * kept, capped at tool_max_result_chars like a tool's, to go with the next prompt as user
 * content: the session logs the line as a `command` record, and command records are never sent
 * to the provider.
 */
import { runProcess } from "../tool/process.ts";
import { truncateAtLine } from "../tool/text.ts";
import { visibleControls } from "../util/terminal_text.ts";

/** Bytes kept from the start and from the end of each output stream. */
const KEEP_BYTES = 64 * 1024;
/** A shell command runs until it ends or is cancelled; this only bounds a forgotten one. */
const TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What a shell escape ran and printed. */
export interface ShellResult {
  code: number;
  /** stdout then stderr, capped. */
  output: string;
  cancelled: boolean;
}

/** Runs `command` with `sh -c` in `cwd`. */
export async function runShell(
  command: string,
  options: { cwd: string; signal: AbortSignal; maxChars: number },
): Promise<ShellResult> {
  const result = await runProcess("sh", ["-c", command], {
    cwd: options.cwd,
    env: Deno.env.toObject(),
    timeoutMs: TIMEOUT_MS,
    signal: options.signal,
    keepBytes: KEEP_BYTES,
  });
  const output = [result.stdout.trimEnd(), result.stderr.trimEnd()].filter(Boolean).join("\n");
  return {
    code: result.code,
    output: truncateAtLine(output, options.maxChars, ""),
    cancelled: result.cancelled,
  };
}

/** The attachment the next prompt carries: the command, its exit code and its output. */
export function shellBlock(command: string, result: ShellResult): string {
  const end = result.cancelled ? ` cancelled="true"` : ` exit_code="${result.code}"`;
  return `<shell_command command=${JSON.stringify(command)}${end}>\n` +
    `${result.output}\n</shell_command>`;
}

/** The output as shown: control characters visible, a line saying how it ended. */
export function shellScreen(result: ShellResult): string[] {
  const lines = result.output ? [visibleControls(result.output)] : [];
  lines.push(
    result.cancelled
      ? "cancelled"
      : `exit code ${result.code} · your own command (no permission asked) · its output goes ` +
        "with your next message",
  );
  return lines;
}
