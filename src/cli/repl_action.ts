/** `svc` with no arguments: the interactive REPL, when standard input and output are terminals. */
import { USAGE_EXIT } from "./usage.ts";

/** Opens the REPL (loaded only now) or says why it cannot; returns the exit code. */
export async function openRepl(): Promise<number> {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
    console.error(
      "svc: the interactive REPL needs a terminal on standard input and output; for one prompt " +
        'without a terminal use svc run --prompt "..." (svc --help lists every command)',
    );
    return USAGE_EXIT;
  }
  const [{ runRepl }, { jobsCommand }] = await Promise.all([
    import("../repl/mod.ts"),
    import("./repl_jobs.ts"),
  ]);
  return await runRepl({}, [jobsCommand]);
}
