/** `/undo [N] [--force]`: restores the files of this session's last turns (docs/sessions.md). */
import type { Command } from "./slash_command.ts";

export const undo: Command = {
  name: "undo",
  usage: "/undo [turns] [--force]",
  summary: "restore the files the last turn (or turns) changed",
  details: [
    "turns     how many turns to undo, newest first (default 1)",
    "--force   overwrite files changed since the turn without asking",
    "A file changed since its turn is overwritten only after you agree; a file the turn",
    "created is removed. Shell changes are restored from a git snapshot where the worktree",
    "is a git repository, else listed as not undoable.",
  ].join("\n"),
  async run(ctx, args) {
    const words = args.split(/\s+/).filter(Boolean);
    const force = words.includes("--force");
    const counts = words.filter((word) => word !== "--force");
    const turns = counts.length ? Number(counts[0]) : 1;
    if (counts.length > 1 || !Number.isInteger(turns) || turns < 1) {
      return ctx.error(`usage: ${undo.usage}`);
    }
    const { undoSession, undoText } = await import("../runtime/undo.ts");
    try {
      const report = await undoSession(ctx.runtime.worktree, ctx.session, {
        turns,
        force,
        confirm: (question) => ctx.confirm(question),
      });
      ctx.print(undoText(report));
    } catch (err) {
      ctx.error(`undo failed: ${(err as Error).message}`);
    }
  },
};
