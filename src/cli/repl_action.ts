/**
 * `svc` with no command: the interactive REPL, when standard input and output are terminals;
 * `svc --continue` opens it on the worktree's most recent session, `svc --resume <session>` on a
 * saved one (a name or a unique prefix), `svc --resume` with the `/resume` picker.
 */
import { USAGE_EXIT } from "./usage.ts";

/** The options the REPL takes before any command name (`svc -c`, `svc --resume x`). */
export const REPL_FLAGS: ReadonlySet<string> = new Set(["--continue", "-c", "--resume", "-r"]);

/** What the REPL's flags ask for, or the usage problem they have. */
export function replFlags(
  args: readonly string[],
): { continue?: boolean; resume?: string; pick?: boolean } | { problem: string } {
  const flags: { continue?: boolean; resume?: string; pick?: boolean } = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].startsWith("--resume=")
      ? ["--resume", args[i].slice(9)]
      : [args[i], undefined];
    if (flag === "--continue" || flag === "-c") flags.continue = true;
    else if (flag === "--resume" || flag === "-r") {
      const value = inline ?? (args[i + 1]?.startsWith("-") ? undefined : args[++i]);
      if (value) flags.resume = value;
      else flags.pick = true;
    } else {
      return {
        problem: `unknown option or argument ${JSON.stringify(args[i])}: the REPL takes ` +
          "--continue or --resume [session] (svc --help lists the commands)",
      };
    }
  }
  if (flags.continue && (flags.resume || flags.pick)) {
    return { problem: "--continue and --resume cannot be combined" };
  }
  return flags;
}

/** Opens the REPL (loaded only now) or says why it cannot; returns the exit code. */
export async function openRepl(args: readonly string[] = []): Promise<number> {
  const flags = replFlags(args);
  if ("problem" in flags) return usage(flags.problem);
  let session: string | undefined;
  if (flags.continue || flags.resume) {
    const [{ latestSession, resolveSessionRef }, { resolveWorktree }] = await Promise.all([
      import("../runtime/sessions.ts"),
      import("../runtime/worktree.ts"),
    ]);
    const worktree = resolveWorktree();
    if (flags.resume) {
      const found = await resolveSessionRef(flags.resume, { worktree });
      if (!found.ok) return usage(`--resume: ${found.message}`);
      session = found.name;
    } else {
      session = await latestSession({ worktree });
      if (!session) return usage(`--continue: no session to continue in ${worktree} yet`);
    }
  }
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    return usage(
      "the interactive REPL needs a terminal on standard input and output; for one prompt " +
        'without a terminal use svc run --prompt "..." (svc --help lists every command)',
    );
  }
  const [{ runRepl }, { jobsCommand }] = await Promise.all([
    import("../repl/mod.ts"),
    import("./repl_jobs.ts"),
  ]);
  return await runRepl({}, [jobsCommand], { session, pick: flags.pick });
}

function usage(message: string): number {
  console.error(`svc: ${message}`);
  return USAGE_EXIT;
}
