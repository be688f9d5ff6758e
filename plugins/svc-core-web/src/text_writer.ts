/**
 * Accumulates readable text: collapses whitespace outside `pre`, turns pending block breaks into
 * at most one blank line, and never starts a line with a space.
 */
export class TextWriter {
  #parts: string[] = [];
  #breaks = 0;
  #space = false;
  #lineStart = true;
  #afterPrefix = false;
  /** Characters written so far. */
  length = 0;

  /** Asks for `lines` newlines (1 = new line, 2 = blank line) before the next text. */
  block(lines: number): void {
    this.#breaks = Math.max(this.#breaks, lines);
  }

  /** True right after a prefix, before any text: a block opening here stays on the prefix's line. */
  get afterPrefix(): boolean {
    return this.#afterPrefix;
  }

  /** A `<br>`: one more newline, at most a blank line. */
  lineBreak(): void {
    this.#breaks = Math.min(this.#breaks + 1, 2);
  }

  /** Writes text; outside `pre` runs of whitespace become one space. */
  text(value: string, pre: boolean): void {
    if (pre) {
      if (!value) return;
      this.#flush();
      this.#push(value);
      return;
    }
    const collapsed = value.replace(/\s+/g, " ");
    if (collapsed.startsWith(" ")) this.#space = true;
    const core = collapsed.trim();
    if (core) {
      this.#flush();
      this.#push(core);
    }
    if (core && collapsed.endsWith(" ")) this.#space = true;
  }

  /** Writes a line prefix (a list marker, a heading's `#`) after any pending break. */
  prefix(value: string): void {
    this.#space = false;
    this.#flush();
    this.#push(value);
    this.#lineStart = true;
    this.#afterPrefix = true;
  }

  /** Writes `value` right after the current text, ignoring pending breaks and spaces. */
  inline(value: string): void {
    if (this.#parts.length === 0) return;
    this.#push(value);
  }

  /** The text written since `length` was `start`. */
  since(start: number): string {
    let text = "";
    for (let i = this.#parts.length - 1; i >= 0 && this.length - text.length > start; i--) {
      text = this.#parts[i] + text;
    }
    return text.slice(text.length - (this.length - start));
  }

  toString(): string {
    return this.#parts.join("").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  }

  #flush(): void {
    if (this.#breaks > 0 && this.#parts.length > 0) {
      this.#push("\n".repeat(this.#breaks));
      this.#lineStart = true;
    } else if (this.#space && !this.#lineStart) this.#push(" ");
    this.#breaks = 0;
    this.#space = false;
  }

  #push(value: string): void {
    this.#afterPrefix = false;
    this.#parts.push(value);
    this.length += value.length;
    this.#lineStart = value.endsWith("\n");
  }
}
