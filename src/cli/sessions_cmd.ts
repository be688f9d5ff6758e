import { Command } from "commander";
import { resolveWorktree } from "../runtime/worktree.ts";
import { wholeNumber } from "./flags.ts";
import { exitCodeOf } from "./usage.ts";

/** Flags every subcommand sees (`--path` before or after the subcommand, `--json` anywhere). */
interface SessionsFlags {
  path?: string;
  json?: boolean;
  limit?: string;
  thinking?: boolean;
  yes?: boolean;
  output?: string;
}

type Sessions = typeof import("../runtime/session_commands.ts");

/** Wraps an action: loads the commands module, reports a failure and sets the exit code. */
type Act = <A extends unknown[]>(
  fn: (s: Sessions, worktree: string, given: SessionsFlags, ...args: A) => unknown,
) => (...args: A) => Promise<void>;

/**
 * `svc sessions`: the saved sessions of a worktree from the shell (docs/sessions.md): list, show,
 * search, rm and export. A session is named by its full name or a unique prefix.
 */
export function sessionsCommand(setExit: (code: number) => void): Command {
  const cmd = new Command("sessions")
    .description("List, show, search, delete and export the saved sessions (.svc/sessions)")
    .option("--path <dir>", "worktree (default: the current directory)");
  const act: Act = (fn) => async (...args) => {
    try {
      const given = (args.at(-1) as Command).optsWithGlobals() as SessionsFlags;
      const worktree = resolveWorktree(given.path);
      const code = await fn(
        await import("../runtime/session_commands.ts"),
        worktree,
        given,
        ...args,
      );
      if (typeof code === "number") setExit(code);
    } catch (err) {
      console.error(`svc sessions: ${(err as Error).message}`);
      setExit(exitCodeOf(err));
    }
  };
  const sub = (name: string, description: string) =>
    cmd.command(name).description(description)
      .option("--path <dir>", "worktree (default: the current directory)");
  const limit = (given: SessionsFlags) =>
    given.limit === undefined ? undefined : wholeNumber(given.limit, { flag: "--limit", min: 1 });

  sub("list", "the saved sessions, newest first: turns, messages, size, last activity")
    .option("--json", "print a JSON array")
    .option("--limit <n>", "at most n sessions")
    .action(act((s, worktree, given) => s.list(worktree, { ...given, limit: limit(given) })));
  sub("show", "one session: its context figure and the conversation, tool calls folded")
    .argument("<ref>", "session name or a unique prefix of it")
    .option("--json", "print the stored session (with its context figure)")
    .option("--thinking", "include the model's thinking")
    .action(act((s, worktree, given, ref: string) => s.show(worktree, ref, given)));
  sub("search", "full text over prompts, answers and tool output, best matches first")
    .argument("<text>", "the text to find (case-insensitive)")
    .option("--json", "print a JSON array of the matching sessions")
    .option("--limit <n>", "at most n sessions (default 20)")
    .action(act((s, worktree, given, text: string) =>
      s.search(worktree, text, {
        ...given,
        limit: limit(given),
        color: Deno.stdout.isTerminal() && !Deno.env.get("NO_COLOR"),
      })
    ));
  sub("rm", "delete a session (asks first on a terminal)")
    .argument("<ref>", "session name or a unique prefix of it")
    .option("--yes", "delete without asking (needed without a terminal)")
    .option("--json", "print what was deleted as JSON")
    .action(act((s, worktree, given, ref: string) =>
      s.remove(worktree, ref, {
        ...given,
        confirm: Deno.stdin.isTerminal() ? askYesNo : undefined,
      })
    ));
  sub("export", "a session as Markdown, to standard output or a file")
    .argument("<ref>", "session name or a unique prefix of it")
    .option("--output <file>", "write the Markdown to this file")
    .option("--thinking", "include the model's thinking")
    .action(act((s, worktree, given, ref: string) => s.exportSession(worktree, ref, given)));
  return cmd;
}

/** A yes/no question on the terminal; no unless answered yes. */
async function askYesNo(question: string): Promise<boolean> {
  const { confirm } = await import("@inquirer/prompts");
  return await confirm({ message: question, default: false });
}
