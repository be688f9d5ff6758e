import { Command } from "commander";
import type { UndoFlags } from "./undo_action.ts";

/** `svc undo`: restores the files a session's last turns changed (docs/sessions.md#undo). */
export function undoCommand(setExit: (code: number) => void): Command {
  return new Command("undo")
    .description(
      "Restore the files the last turn of a session changed (newest first); a file changed " +
        "since the turn is refused unless --force (or, in a terminal, you agree)",
    )
    .option("--session <ref>", "the session (a name or unique prefix; default the most recent)")
    .option("--turns <n>", "how many turns to undo, newest first (default 1)")
    .option("--force", "overwrite files changed since their turn")
    .option("--yes", "ask nothing: files changed since their turn are refused unless --force")
    .option("--json", "print the report as JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .action(async (flags: UndoFlags) => {
      const { undoAction } = await import("./undo_action.ts");
      setExit(await undoAction(flags));
    });
}
