/**
 * Newline framing of a byte stream in linear time. The SDK's `ReadBuffer` concatenates every
 * chunk and scans the whole buffer for a newline again on each one, which is quadratic: a
 * hostile server's 16 MiB line kept svc's event loop busy for about 8 s. Here each byte is
 * scanned once and a line's chunks are joined once.
 */
export class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;

  /** @param max the longest line accepted, in bytes */
  constructor(readonly max: number) {}

  /** The lines that `chunk` completes, without their newline; throws once a line passes `max`. */
  push(chunk: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      lines.push(this.#finish(chunk.subarray(start, end)));
      start = end + 1;
    }
    if (start < chunk.length) {
      this.#grow(chunk.length - start);
      this.#parts.push(chunk.slice(start));
    }
    return lines;
  }

  #grow(bytes: number): void {
    this.#size += bytes;
    if (this.#size > this.max) {
      this.#parts = [];
      throw new Error(`a message over ${this.max} bytes`);
    }
  }

  #finish(tail: Uint8Array): Uint8Array {
    if (!this.#parts.length) {
      this.#grow(tail.length);
      this.#size = 0;
      return tail;
    }
    this.#grow(tail.length);
    const line = new Uint8Array(this.#size);
    let offset = 0;
    for (const part of [...this.#parts, tail]) {
      line.set(part, offset);
      offset += part.length;
    }
    this.#parts = [];
    this.#size = 0;
    return line;
  }
}
