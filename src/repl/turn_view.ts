/**
 * One turn on screen: engine events in, committed scrollback and live lines out. The answer is
 * committed as it finishes (lines, or markdown blocks with markdown_streaming) and its unfinished
 * tail lives in the live region; thinking is streamed dimmed (show_thinking) or shown as a
 * spinner and then "thought for 1.2 s"; running tools are ephemeral live lines and each finished
 * call leaves one line (tool_status_visible), with the hunks of a diff it reports; a delegate's answer and footer are echoed
 * (delegate_echo). Nothing here is persisted: the engine writes the session. Every text an event
 * carries is untrusted (model text, tool output, file content): its control characters are shown
 * as `\xHH` escapes (visibleControls) before svc styles it.
 */
import type { EngineEvent, TurnResult } from "../runtime/mod.ts";
import { compactionNote } from "../runtime/context_figure.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { cutText, tailText } from "../util/text_cut.ts";
import { type Block, BlockCommitter, renderBlock } from "./markdown.ts";
import type { Style } from "./style.ts";
import { clip, wrapLine } from "./width.ts";
import { diffLines, isDiff } from "./diff_view.ts";

/** The display keys a turn uses. */
export interface TurnDisplay {
  show_thinking: boolean;
  tool_status_visible: boolean;
  markdown_streaming: boolean;
  delegate_echo: boolean;
  clear_screen: boolean;
}

/** Rows of the streaming answer's tail shown in the live region. */
export const TAIL_ROWS = 4;

export class TurnView {
  readonly started = performance.now();
  #answer: BlockCommitter;
  #thoughts = new BlockCommitter("lines");
  #thinkStart: number | null = null;
  #thinkEnd: number | null = null;
  #tools = new Map<string, string>();
  #status = "";

  constructor(
    readonly commit: (text: string) => void,
    readonly style: Style,
    readonly display: TurnDisplay,
  ) {
    this.#answer = new BlockCommitter(display.markdown_streaming ? "blocks" : "lines");
  }

  /** Renders one engine event. */
  event(event: EngineEvent): void {
    switch (event.type) {
      case "thinking":
        if (this.#thinkStart === null) this.#thinkStart = performance.now();
        if (this.display.show_thinking) {
          for (const b of this.#thoughts.feed(visibleControls(event.content))) {
            this.commit(this.style.dim(b.text));
          }
        }
        return;
      case "token":
        this.#endThinking();
        this.#blocks(this.#answer.feed(visibleControls(event.content)));
        return;
      case "tool_start":
        this.#endThinking();
        this.#flushAnswer();
        this.#tools.set(event.call.id, `${visibleControls(event.name)} ${summarize(event.args)}`);
        return;
      case "tool_end":
        this.#toolEnd(event);
        return;
      case "status":
        this.#status = visibleControls(event.message);
        return;
      case "warning":
        this.commit(this.style.yellow(`warning: ${visibleControls(event.message)}`));
        return;
      case "compaction":
        // `/compact` prints its own line.
        if (event.trigger === "auto") this.commit(this.style.dim(compactionNote(event)));
        return;
      case "error":
        this.commit(this.style.red(`error: ${visibleControls(event.message)}`));
        return;
    }
  }

  /** Commits what is still open and, for a turn, its closing line. */
  finish(result?: TurnResult): void {
    this.#endThinking();
    this.#flushAnswer();
    this.#tools.clear();
    this.#status = "";
    const { glyphs } = this.style;
    if (!result) return;
    if (result.status === "cancelled") {
      this.commit(this.style.yellow("cancelled: the partial answer is kept in the session"));
    } else if (result.status === "truncated") {
      this.commit(this.style.yellow("the answer was cut at the token cap (max_tokens)"));
    } else if (result.status === "empty") {
      this.commit(this.style.yellow("the model returned an empty answer"));
    }
    if (!this.display.clear_screen) {
      const tokens = result.usage?.completion_tokens;
      const mark = result.status === "ok" ? glyphs.ok : glyphs.fail;
      this.commit(this.style.dim(
        `${mark} ${result.status} in ${result.duration.toFixed(1)} s` +
          (tokens !== undefined ? `, ${tokens} completion tokens` : ""),
      ));
    }
  }

  /** The turn's live lines at `columns` wide; `frame` picks the spinner glyph. */
  lines(columns: number, frame: number): string[] {
    const { glyphs } = this.style;
    const spin = glyphs.spinner[frame % glyphs.spinner.length];
    const out: string[] = [];
    for (const tool of this.#tools.values()) out.push(clip(`${spin} ${tool}`, columns));
    if (this.#status) out.push(this.style.dim(clip(`  ${this.#status}`, columns)));
    if (this.display.show_thinking && this.#thinking()) {
      out.push(...tailRows(this.#thoughts.tail(), columns).map((r) => this.style.dim(r)));
    }
    const tail = this.#answer.tail();
    if (tail) out.push(...tailRows(tail, columns));
    if (!this.#tools.size && !tail) {
      const seconds = ((performance.now() - (this.#thinkStart ?? this.started)) / 1000).toFixed(1);
      const what = this.#thinking() ? `thinking ${seconds} s` : `working ${seconds} s`;
      out.push(this.style.dim(`${spin} ${what} (Esc to cancel)`));
    }
    return out;
  }

  #thinking(): boolean {
    return this.#thinkStart !== null && this.#thinkEnd === null;
  }

  #endThinking(): void {
    if (!this.#thinking()) return;
    this.#thinkEnd = performance.now();
    if (this.display.show_thinking) {
      for (const b of this.#thoughts.end()) this.commit(this.style.dim(b.text));
      this.#thoughts = new BlockCommitter("lines");
    } else {
      const seconds = ((this.#thinkEnd - this.#thinkStart!) / 1000).toFixed(1);
      this.commit(this.style.dim(`thought for ${seconds} s`));
    }
    // A later round may think again.
    this.#thinkStart = null;
    this.#thinkEnd = null;
  }

  #flushAnswer(): void {
    this.#blocks(this.#answer.end());
  }

  #blocks(blocks: Block[]): void {
    for (const block of blocks) this.commit(renderBlock(block, this.style));
  }

  #toolEnd(event: Extract<EngineEvent, { type: "tool_end" }>): void {
    const label = this.#tools.get(event.id) ?? visibleControls(event.name);
    this.#tools.delete(event.id);
    const { glyphs } = this.style;
    // Denied by the policy, refused at the prompt (an ask answered n), or cancelled.
    const refused = event.decision === "deny" || event.decision === "cancelled" ||
      (event.decision === "ask" && !event.ok &&
        (event.content === "[cancelled]" || event.refusal !== undefined));
    const failed = !event.ok || refused;
    if (this.display.tool_status_visible || failed) {
      const mark = failed ? this.style.red(glyphs.fail) : this.style.green(glyphs.ok);
      const why = refused
        ? ` ${event.decision === "cancelled" ? "cancelled" : "denied"}`
        : failed
        ? `: ${visibleControls(cutText(event.content.split("\n")[0], 200))}`
        : "";
      const status = !failed && event.status && event.name !== "delegate"
        ? this.style.dim(` (${visibleControls(cutText(event.status.split("\n")[0], 160))})`)
        : "";
      this.commit(`${mark} ${label}${why}${status}`);
      if (!failed && isDiff(event.status)) {
        this.commit(diffLines(event.status, this.style).join("\n"));
      }
    }
    if (event.name === "delegate" && this.display.delegate_echo && !refused) {
      this.commit(visibleControls(event.content.trimEnd()));
      if (event.status) {
        this.commit(this.style.dim(`${glyphs.rule.repeat(2)} ${visibleControls(event.status)}`));
      }
    }
  }
}

/** The last TAIL_ROWS rows of `text` wrapped at `columns`. */
function tailRows(text: string, columns: number): string[] {
  // Only the end of a long line can show: wrapping all of it each frame would cost O(answer).
  const keep = columns * (TAIL_ROWS + 1);
  const lines = tailText(text, keep * TAIL_ROWS).split("\n").slice(-TAIL_ROWS);
  return lines.flatMap((line) => wrapLine(tailText(line, keep), columns))
    .slice(-TAIL_ROWS);
}

/** Tool arguments in one short line (JSON escapes C0 controls; DEL and C1 are made visible). */
export function summarize(args: Record<string, unknown>): string {
  const text = visibleControls(JSON.stringify(args));
  return text.length > 120 ? `${cutText(text, 117)}...` : text;
}
