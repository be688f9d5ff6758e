import type { EngineEvent } from "../runtime/mod.ts";

const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** Renders engine events for headless text output: answer to `out`, activity to stderr. */
export function renderTextEvent(
  event: EngineEvent,
  options: { verbose: boolean; out: ((text: string) => void) | null },
): void {
  // Asked only when a note is printed: a streamed answer is thousands of token events, and asking
  // the terminal is a system call each time.
  const note = (text: string) => console.error(noteColor() ? `${DIM}${text}${RESET}` : text);
  switch (event.type) {
    case "token":
      options.out?.(event.content);
      break;
    case "thinking":
      if (options.verbose) Deno.stderr.writeSync(new TextEncoder().encode(event.content));
      break;
    case "tool_start":
      note(`-> ${event.name} ${summarizeArgs(event.args)}`);
      break;
    case "tool_end":
      if (event.decision !== "allow" || !event.ok) {
        note(`   ${event.name}: ${event.content.split("\n")[0].slice(0, 200)}`);
      } else if (options.verbose) note(`   ${event.status ?? event.content.slice(0, 300)}`);
      break;
    case "warning":
      console.error(`warning: ${event.message}`);
      break;
    case "error":
      console.error(`error: ${event.message}`);
      break;
    case "status":
      if (options.verbose) note(event.message);
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
  const text = JSON.stringify(args);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
