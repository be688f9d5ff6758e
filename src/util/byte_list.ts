const encoder = new TextEncoder();

/**
 * A growing byte buffer holding a JSON array's items as encoded text (`item,\nitem`), so a
 * document can be rewritten without re-serializing or re-encoding what did not change.
 */
export class ByteList {
  #bytes = new Uint8Array(4096);
  #length = 0;
  #count = 0;

  constructor(items: Iterable<unknown> = []) {
    for (const item of items) this.push(item);
  }

  /** Appends one JSON-serialized item. */
  push(item: unknown): void {
    const encoded = encoder.encode(`${this.#count ? ",\n" : ""}${JSON.stringify(item)}`);
    if (this.#length + encoded.length > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + encoded.length));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(encoded, this.#length);
    this.#length += encoded.length;
    this.#count++;
  }

  /** The array as JSON bytes: `[]` or `[\n...\n]`. */
  chunks(): Uint8Array[] {
    if (this.#count === 0) return [encoder.encode("[]")];
    return [encoder.encode("[\n"), this.#bytes.subarray(0, this.#length), encoder.encode("\n]")];
  }
}

/** Joins byte chunks into one buffer. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
