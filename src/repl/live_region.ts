/**
 * What the live region shows under the scrollback, top to bottom: the running task (its turn's
 * lines, or a spinner and its label), the queued prompts, the open question or the input line, a
 * hint, and the status line (provider/model, context size, session).
 */
import type { SessionMessage } from "../runtime/mod.ts";
import type { Editor } from "./editor.ts";
import type { Prompt } from "./prompts.ts";
import type { LiveView } from "./screen.ts";
import type { Style } from "./style.ts";
import type { TurnView } from "./turn_view.ts";
import { clip } from "./width.ts";

/** What the live region is drawn from. */
export interface LiveState {
  columns: number;
  /** The spinner's frame. */
  frame: number;
  style: Style;
  /** The running task, with its turn's view while it renders one. */
  task: { label: string; view: TurnView | null } | null;
  queue: readonly string[];
  /** The open question; it replaces the input line. */
  prompt: Prompt | undefined;
  editor: Editor;
  /** A notice under the input ("Press Ctrl-C again to exit", "cancelling..."). */
  notice: string;
  /** The status line; null when show_context_size is off. */
  status: string | null;
}

/** The live region's lines and where the cursor sits in them. */
export function liveView(state: LiveState): LiveView {
  const { columns, style, task, prompt } = state;
  const lines: string[] = [];
  if (task?.view) lines.push(...task.view.lines(columns, state.frame));
  else if (task) {
    const spin = style.glyphs.spinner[state.frame % style.glyphs.spinner.length];
    lines.push(style.dim(`${spin} ${task.label}`));
  }
  for (const queued of state.queue) {
    lines.push(style.dim(clip(`queued: ${queued.split("\n")[0]}`, columns)));
  }
  let cursor: LiveView["cursor"] = null;
  if (prompt) {
    lines.push(...prompt.lines.map((l) => clip(l, columns)));
    if (prompt.editor) {
      const view = prompt.editor.view("  ");
      cursor = { line: lines.length + view.cursor.line, col: view.cursor.col };
      lines.push(...view.lines);
    }
  } else {
    const view = state.editor.view(`${style.glyphs.prompt} `);
    cursor = { line: lines.length + view.cursor.line, col: view.cursor.col };
    lines.push(...view.lines);
  }
  const hint = prompt?.editor?.hint || (prompt ? "" : state.editor.hint) || state.notice;
  if (hint) lines.push(style.dim(clip(hint, columns)));
  if (state.status !== null) lines.push(style.dim(clip(state.status, columns)));
  return { lines, cursor };
}

/** The status line: the model (or why there is none), the context size, a named session. */
export function statusLine(parts: {
  /** The connected backend; null without one. */
  model: { provider: string; model: string } | null;
  /** Why there is no engine ("loading..." while the runtime loads). */
  engineError: string;
  /** The context size label; empty before the first estimate. */
  context: string;
  /** The session's name; null while it is new (unnamed). */
  session: string | null;
}): string {
  const model = parts.model
    ? `${parts.model.provider}/${parts.model.model}`
    : parts.engineError === "loading..."
    ? "loading..."
    : "no model backend (/connect)";
  const session = parts.session !== null ? ` · ${parts.session}` : "";
  return `${model} · ${parts.context || "ctx 0 tokens"}${session}`;
}

/** The token count a turn reported and how many session messages there were then. */
export interface ContextMeasure {
  tokens: number;
  /** The session's message count when the tokens were reported. */
  at: number;
}

/**
 * The context size label: the last turn's prompt and completion tokens (`measured`), plus about a
 * quarter of the characters of the messages added since (commands not counted, so a slash command
 * leaves it as it was); without a measure, or after a compaction since it, about a quarter of the
 * characters of the messages since the last compaction. `window` is the model's context window.
 */
export function contextLabel(
  messages: readonly SessionMessage[],
  options: { measured?: ContextMeasure; window?: number } = {},
): string {
  const { measured, window } = options;
  const of = window ? ` of ${compactNumber(window)}` : "";
  let last = -1;
  for (let i = messages.length - 1; i >= 0 && last < 0; i--) {
    if (messages[i].compact_from !== undefined) last = i;
  }
  const usable = measured !== undefined && measured.at <= messages.length && last < measured.at;
  const since = usable ? measured.at : last >= 0 ? messages[last].compact_from! : 0;
  let chars = 0;
  let added = false;
  for (const m of messages.slice(since)) {
    if (m.role === "command") continue;
    chars += (m.content ?? "").length;
    added = true;
  }
  if (usable && !added) return `ctx ${compactNumber(measured.tokens)}${of} tokens`;
  const base = usable ? measured.tokens : 0;
  return `ctx ~${compactNumber(base + Math.round(chars / 4))}${of} tokens`;
}

function compactNumber(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}
