const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Splits reasoning embedded in streamed content as `<think>...</think>` blocks. Tags may arrive
 * split across tokens, so a possible tag prefix at the end of a chunk is held back.
 */
export class ThinkSplitter {
  #inside = false;
  #pending = "";

  /** Feeds one content token; returns the visible text and the reasoning it contained. */
  push(chunk: string): { text: string; thinking: string } {
    let buffer = this.#pending + chunk;
    this.#pending = "";
    let text = "";
    let thinking = "";
    while (buffer) {
      const tag = this.#inside ? CLOSE : OPEN;
      const at = buffer.indexOf(tag);
      if (at >= 0) {
        if (this.#inside) thinking += buffer.slice(0, at);
        else text += buffer.slice(0, at);
        buffer = buffer.slice(at + tag.length);
        this.#inside = !this.#inside;
        continue;
      }
      const keep = partialSuffix(buffer, tag);
      const out = buffer.slice(0, buffer.length - keep);
      if (this.#inside) thinking += out;
      else text += out;
      this.#pending = buffer.slice(buffer.length - keep);
      break;
    }
    return { text, thinking };
  }

  /** Flushes a held-back partial tag at the end of the stream. */
  flush(): { text: string; thinking: string } {
    const rest = this.#pending;
    this.#pending = "";
    return this.#inside ? { text: "", thinking: rest } : { text: rest, thinking: "" };
  }
}

function partialSuffix(buffer: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, buffer.length); n > 0; n--) {
    if (tag.startsWith(buffer.slice(buffer.length - n))) return n;
  }
  return 0;
}
