/**
 * `svc undo` and the REPL's `/undo`: restore the files of a session's last turns from their
 * checkpoints (src/session/undo.ts). Loaded lazily; it loads the session layer's undo, not the
 * whole runtime.
 */
import { isTrusted } from "../config/trust.ts";
import { SessionStore } from "../session/store.ts";
import type { SessionLog } from "../session/log.ts";
import { latestSession, resolveSessionRef } from "../session/resolve.ts";
import { turnLine, type UndoOptions, type UndoReport, undoTurns } from "../session/undo.ts";

export { turnLine, type UndoOptions, type UndoReport };

/** Undoes turns of a session already open (the REPL's current session). */
export function undoSession(
  worktree: string,
  session: SessionLog,
  options: UndoOptions = {},
): Promise<UndoReport> {
  return undoTurns(worktree, session, options);
}

/**
 * Undoes turns of the session `ref` names (a name or unique prefix; default the worktree's most
 * recent session); throws with the reason (and close names) when there is none.
 */
export async function undoByRef(
  worktree: string,
  ref: string | undefined,
  options: UndoOptions = {},
): Promise<UndoReport> {
  let name: string | undefined;
  if (ref !== undefined) {
    const found = await resolveSessionRef(ref, { worktree });
    if (!found.ok) throw new Error(found.message);
    name = found.name;
  } else {
    name = await latestSession({ worktree });
    if (!name) throw new Error("this worktree has no saved session");
  }
  const store = new SessionStore(worktree, { confine: !(await isTrusted(worktree)) });
  return await undoTurns(worktree, await store.openOrCreate(name), options);
}

/** The report as lines of text. */
export function undoText(report: UndoReport): string {
  if (!report.turns.length) {
    return `${report.session}: no turn to undo (no checkpoint left)` +
      report.skipped.map((s) => `\nskipped ${s.path}: ${s.problem}`).join("");
  }
  const lines: string[] = [];
  for (const turn of report.turns) {
    const prompt = turn.prompt.replace(/\s+/g, " ").slice(0, 60);
    lines.push(`${turn.complete ? "undid" : "partly undid"} turn ${turn.id} "${prompt}"`);
    for (const file of turn.files) {
      lines.push(
        `  ${file.action.replace("_", " ")} ${file.path}${file.why ? `: ${file.why}` : ""}`,
      );
    }
    for (const run of turn.shell) lines.push(`  shell ${run.tool}: ${run.command}`);
    if (turn.shellNote) lines.push(`  shell changes: ${turn.shellNote}`);
    if (!turn.complete) lines.push("  older turns were left alone");
  }
  for (const s of report.skipped) lines.push(`skipped ${s.path}: ${s.problem}`);
  return lines.join("\n");
}
