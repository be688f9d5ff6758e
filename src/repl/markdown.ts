/**
 * The streaming answer committer. Streamed text goes in; what is finished comes out, to be
 * committed to the scrollback once and never re-rendered; the unfinished rest (`tail`) is what
 * the live region shows. In `lines` mode (markdown_streaming off) every complete line is
 * finished. In `blocks` mode (markdown_streaming on) a block is finished at a blank line, a
 * heading line, or the closing fence of a code block, and is rendered as markdown: headings
 * bold, inline code, bold and italic styled, code blocks left exactly as written (no gutter,
 * no indent) so they copy cleanly, only their fence lines dimmed.
 */
import type { Style } from "./style.ts";

/** One finished piece of the answer, as committed lines. */
export interface Block {
  kind: "line" | "text" | "heading" | "code" | "blank";
  text: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;

export class BlockCommitter {
  /** The incomplete last line. */
  #partial = "";
  /** Complete lines of the block being built. */
  #lines: string[] = [];
  #fence: string | null = null;

  constructor(readonly mode: "lines" | "blocks") {}

  /** Adds streamed text; returns the blocks it finished. */
  feed(text: string): Block[] {
    if (!text.includes("\n")) {
      this.#partial += text;
      return [];
    }
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop()!;
    const out: Block[] = [];
    for (const line of parts) this.#line(line, out);
    return out;
  }

  /** The unfinished text: the open block's lines and the partial line. */
  tail(): string {
    return this.#lines.length ? `${this.#lines.join("\n")}\n${this.#partial}` : this.#partial;
  }

  /** Ends the stream: whatever is open is finished. */
  end(): Block[] {
    const out: Block[] = [];
    if (this.#partial) this.#line(this.#partial, out);
    this.#partial = "";
    this.#close(out);
    return out;
  }

  #line(line: string, out: Block[]): void {
    if (this.mode === "lines") {
      out.push({ kind: "line", text: line });
      return;
    }
    if (this.#fence !== null) {
      this.#lines.push(line);
      const close = FENCE.exec(line);
      if (
        close && close[1][0] === this.#fence[0] && close[1].length >= this.#fence.length &&
        !line.slice(close[0].length).trim()
      ) {
        out.push({ kind: "code", text: this.#lines.join("\n") });
        this.#lines = [];
        this.#fence = null;
      }
      return;
    }
    const open = FENCE.exec(line);
    if (open) {
      this.#close(out);
      this.#fence = open[1];
      this.#lines.push(line);
      return;
    }
    if (!line.trim()) {
      this.#close(out);
      out.push({ kind: "blank", text: "" });
      return;
    }
    if (HEADING.test(line)) {
      this.#close(out);
      out.push({ kind: "heading", text: line });
      return;
    }
    this.#lines.push(line);
  }

  #close(out: Block[]): void {
    if (!this.#lines.length) return;
    out.push({ kind: this.#fence !== null ? "code" : "text", text: this.#lines.join("\n") });
    this.#lines = [];
    this.#fence = null;
  }
}

/** A finished block as committed text; without color it is the text as streamed. */
export function renderBlock(block: Block, style: Style): string {
  if (!style.color || block.kind === "line" || block.kind === "blank") return block.text;
  if (block.kind === "heading") return style.bold(block.text.replace(/^ {0,3}#{1,6}\s*/, ""));
  if (block.kind === "code") {
    const lines = block.text.split("\n");
    return lines.map((line, i) =>
      (i === 0 || (i === lines.length - 1 && FENCE.test(line))) ? style.dim(line) : line
    ).join("\n");
  }
  return inline(block.text, style);
}

/** Inline markdown: `code`, **bold**, *italic* (markers kept out of the styled text). */
function inline(text: string, style: Style): string {
  return text
    .replace(/`([^`\n]+)`/g, (_, code) => style.cyan(code))
    .replace(/\*\*([^*\n]+)\*\*/g, (_, bold) => style.bold(bold))
    .replace(
      /(^|[\s(])\*([^*\s][^*\n]*?)\*(?=[\s.,;:!?)]|$)/g,
      (_, pre, it) => `${pre}${style.italic(it)}`,
    );
}
