/** The run_command tool: one shell command in the worktree, gated by bash_allow. */
import type { Zod } from "../../../src/plugin/api.ts";
import { bashAllowPolicy, type Tool } from "../../../src/plugin/api.ts";
import { commandSandbox, runShell } from "../../../src/tool/shell.ts";

const schema = (z: Zod) =>
  z.object({
    command: z.string().min(1),
    timeout: z.number().positive().optional().describe("seconds; default 120, max 600"),
  });

/** run_command: exit code, stdout and stderr of a shell command; the process group dies on timeout. */
export const runCommandTool: Tool = {
  name: "run_command",
  category: "bash",
  runsInSandbox: true,
  description:
    "Run a shell command with bash -c in the worktree (stdin empty); returns exit code, stdout " +
    "and stderr. Background processes are killed when it ends.",
  schema,
  aliases: ["bash", "exec"],
  argAliases: { cmd: "command" },
  resolvePolicy(args, worktree) {
    return bashAllowPolicy(String(args.command ?? ""), {
      prefixes: args._permissions.bash_allow,
      worktree,
    });
  },
  run(args, ctx) {
    return runShell(args.command as string, {
      cwd: ctx.worktree,
      worktree: ctx.worktree,
      sandbox: commandSandbox(ctx),
      timeoutS: args.timeout as number | undefined,
      signal: ctx.signal,
      status: (line) => ctx.status(line),
      terminal: ctx.terminal,
    });
  },
};
