import type { EngineEvent } from "../runtime/mod.ts";
import { compactionNote } from "../runtime/context_figure.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { cutText } from "../util/text_cut.ts";

const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/**
 * Renders engine events for headless text output: answer to `out`, activity to stderr. Model text,
 * tool output and messages are untrusted: their control characters are shown as `\xHH` escapes
 * (visibleControls) before svc adds its own dimming.
 */
export function renderTextEvent(
  event: EngineEvent,
  options: { verbose: boolean; out: ((text: string) => void) | null },
): void {
  // Asked only when a note is printed: a streamed answer is thousands of token events, and asking
  // the terminal is a system call each time.
  const note = (text: string) => console.error(noteColor() ? `${DIM}${text}${RESET}` : text);
  switch (event.type) {
    case "token":
      options.out?.(visibleControls(event.content));
      break;
    case "thinking":
      if (options.verbose) {
        Deno.stderr.writeSync(new TextEncoder().encode(visibleControls(event.content)));
      }
      break;
    case "tool_start":
      note(`-> ${visibleControls(event.name)} ${summarizeArgs(event.args)}`);
      break;
    case "tool_end":
      if (event.refusal) {
        console.error(`refused: ${visibleControls(event.refusal)}`);
      } else if (event.decision !== "allow" || !event.ok) {
        const line = cutText(event.content.split("\n")[0], 200);
        note(`   ${visibleControls(event.name)}: ${visibleControls(line)}`);
      } else if (options.verbose) {
        note(`   ${visibleControls(event.status ?? cutText(event.content, 300))}`);
      }
      break;
    case "warning":
      console.error(`warning: ${visibleControls(event.message)}`);
      break;
    case "error":
      console.error(`error: ${visibleControls(event.message)}`);
      break;
    case "status":
      if (options.verbose) note(visibleControls(event.message));
      break;
    case "compaction":
      if (event.trigger === "auto" || options.verbose) note(compactionNote(event));
      break;
    case "done":
      if (options.verbose) {
        const r = event.result;
        note(
          `[${r.status}] ${r.duration}s ${r.provider}/${r.model} session ${r.session}` +
            (r.usage ? ` tokens ${JSON.stringify(r.usage)}` : ""),
        );
      }
      break;
  }
}

/** Whether notes on stderr are dimmed: stderr is a terminal and NO_COLOR is unset. */
function noteColor(): boolean {
  return Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR");
}

function summarizeArgs(args: Record<string, unknown>): string {
  const text = visibleControls(JSON.stringify(args));
  return text.length > 160 ? `${cutText(text, 157)}...` : text;
}
