/** `svc undo`'s work: resolve the session, undo its turns, print the report. */
import { resolveWorktree } from "../runtime/worktree.ts";
import { writeAllSync } from "../util/write_all.ts";
import { USAGE_EXIT } from "./usage.ts";

/** The flags of `svc undo`. */
export interface UndoFlags {
  session?: string;
  turns?: string;
  force?: boolean;
  yes?: boolean;
  json?: boolean;
  path?: string;
}

/** Runs `svc undo`; the exit code: 0 done (or nothing to undo), 1 a file refused or an error. */
export async function undoAction(flags: UndoFlags): Promise<number> {
  const turns = flags.turns === undefined ? 1 : Number(flags.turns);
  if (!Number.isInteger(turns) || turns < 1) {
    console.error(`svc undo: --turns must be a whole number of at least 1, not ${flags.turns}`);
    return USAGE_EXIT;
  }
  const { undoByRef, undoText } = await import("../runtime/undo.ts");
  const interactive = !flags.yes && !flags.json && Deno.stdin.isTerminal();
  try {
    const report = await undoByRef(resolveWorktree(flags.path), flags.session, {
      turns,
      force: flags.force,
      ...(interactive ? { confirm: (question: string) => Promise.resolve(confirm(question)) } : {}),
    });
    const text = flags.json ? JSON.stringify(report, null, 2) : undoText(report);
    writeAllSync(Deno.stdout, `${text}\n`);
    return report.turns.every((turn) => turn.complete) ? 0 : 1;
  } catch (err) {
    console.error(`svc undo: ${(err as Error).message}`);
    return 1;
  }
}
