import { Command } from "commander";
import type { RunFlags, StatusFlags } from "./sandbox_action.ts";
import { seconds } from "./flags.ts";
import { exitCodeOf } from "./usage.ts";

/** `svc sandbox`: the OS sandbox of a worktree's commands, and one command run in it. */
export function sandboxCommand(setExit: (code: number) => void): Command {
  const cmd = new Command("sandbox").description(
    "The OS sandbox every shell command svc runs for a model goes through: what it allows here, " +
      "and one command run in it",
  );
  cmd.command("status")
    .description(
      "Which sandbox runs here (or why none does, and the fix), the mode in force for the " +
        "worktree, what is writable, read-only and hidden, the network rule and the limits",
    )
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--json", "print JSON")
    .action(async (flags: StatusFlags) => {
      try {
        const { printStatus } = await import("./sandbox_action.ts");
        await printStatus(flags);
      } catch (err) {
        console.error(`svc sandbox status: ${(err as Error).message}`);
        setExit(exitCodeOf(err));
      }
    });
  cmd.command("run")
    .description(
      "Run one shell command (bash -c) in the worktree's sandbox exactly as the run_command " +
        "tool would, print what the model would read and exit with the command's code",
    )
    .argument("[command...]", "the command line; its words are joined with spaces")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--timeout <seconds>", "seconds before the command is killed (default 120, max 600)")
    .addHelpText(
      "after",
      "\nPut -- before the command when it has options: svc sandbox run -- ls -la ~/.ssh\n" +
        "The tool policy (bash_allow, tool_permission) is not asked: you run it, not a model.\n" +
        "Exit code: the command's, or 126 when it never started (refused by the sandbox " +
        "settings).",
    )
    .action(async (words: string[], flags: Omit<RunFlags, "timeout"> & { timeout?: string }) => {
      try {
        const timeout = flags.timeout === undefined
          ? undefined
          : seconds(flags.timeout, { flag: "--timeout", max: 600 });
        const { runInSandbox } = await import("./sandbox_action.ts");
        setExit(await runInSandbox(words, { path: flags.path, timeout }));
      } catch (err) {
        console.error(`svc sandbox run: ${(err as Error).message}`);
        setExit(exitCodeOf(err));
      }
    });
  return cmd;
}
