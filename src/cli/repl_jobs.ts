/**
 * The REPL's `/jobs`: the operations of `svc jobs` on the REPL's worktree, printed into its
 * scrollback. Front-ends never import each other, so the command is built here, where the CLI
 * composes them, and handed to the REPL (`runRepl`'s extra commands).
 */
import type { Command } from "../repl/slash_command.ts";
import { firstWord } from "../repl/slash_command.ts";
import { change, list, show, status } from "../jobs/commands.ts";

const CHANGES = ["approve", "reject", "enable", "disable", "stop", "remove"] as const;
type Change = typeof CHANGES[number];

export const jobsCommand: Command = {
  name: "jobs",
  usage: "/jobs [status|list|show <name>|approve|reject|enable|disable|stop|remove <name>]",
  summary: "the worktree's scheduled jobs: status (the default), details, approvals",
  details: "The same as svc jobs in a shell (docs/jobs.md); add, edit, run and the daemon stay " +
    "there. approve arms a job for the daemon, which runs it headless.",
  subcommands: ["status", "list", "show", ...CHANGES],
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    const [name] = firstWord(rest);
    const worktree = ctx.runtime.worktree;
    const flags = { out: (text: string) => ctx.print(text) };
    try {
      switch (sub || "status") {
        case "status":
          return await status(worktree, flags);
        case "list":
          return await list(worktree, flags);
        case "show":
          if (!name) return ctx.error("usage: /jobs show <name>");
          return await show(worktree, name, flags);
        default: {
          const what = (sub === "stop" ? "disable" : sub) as Change;
          if (!CHANGES.includes(sub as Change)) {
            return ctx.error(`unknown /jobs subcommand ${sub}; /help jobs lists them`);
          }
          if (!name) return ctx.error(`usage: /jobs ${sub} <name>`);
          return await change(worktree, { ...flags, what: what as Exclude<Change, "stop">, name });
        }
      }
    } catch (err) {
      ctx.error((err as Error).message);
    }
  },
};
