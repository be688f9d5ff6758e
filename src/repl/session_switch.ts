/**
 * The session hooks of the REPL's session changes (docs/hooks.md): SessionEnd of the one left
 * (`clear` for a new one, else `other`) and SessionStart of the one opened (`startup`, `resume` or
 * `clear`); and SessionEnd `prompt_input_exit` of the one open when the REPL exits.
 */
import type { Runtime, SessionLog } from "../runtime/mod.ts";
import { sessionEnd, sessionStart } from "../runtime/session_hooks.ts";
import { visibleControls } from "../util/terminal_text.ts";

/** Runs the hooks of switching from `previous` to `session`. */
export async function switchHooks(
  runtime: Runtime,
  change: {
    previous: SessionLog | null;
    session: SessionLog;
    source: "startup" | "resume" | "clear";
    warn: (text: string) => void;
  },
): Promise<void> {
  const { previous, session, source, warn } = change;
  if (previous && previous !== session) {
    await sessionEnd(runtime, previous, { reason: source === "clear" ? "clear" : "other", warn });
  }
  await sessionStart(runtime, session, { source, warn });
}

/** The SessionEnd hooks of the session open when the REPL exits; warnings go to stderr. */
export async function exitHooks(runtime: Runtime | null, session: SessionLog | null) {
  if (!runtime || !session) return;
  await sessionEnd(runtime, session, {
    reason: "prompt_input_exit",
    warn: (text) => console.error(`warning: ${visibleControls(text)}`),
  }).catch(() => {});
}
