/** `/diff`: the full diff of the last turn that changed files (its checkpoint against now). */
import { diffText } from "./diff_view.ts";
import type { Command } from "./slash_command.ts";

export const diff: Command = {
  name: "diff",
  usage: "/diff",
  summary: "show the full diff of the last turn that changed files",
  details: "Each file as it was before that turn against what it holds now; /undo restores it.",
  async run(ctx) {
    const { turnChanges } = await import("../runtime/turn_changes.ts");
    const changes = await turnChanges(ctx.runtime.worktree, { session: ctx.session });
    if (!changes?.files.length) return ctx.print("No turn of this session changed files");
    for (const file of changes.files) {
      ctx.print(
        file.kind === "unknown"
          ? ctx.style.dim(`${file.path}: binary, too large or not recorded; not shown`)
          : diffText(file.patch, ctx.style),
      );
    }
  },
};
