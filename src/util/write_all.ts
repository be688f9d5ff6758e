/** A synchronous writer: `Deno.stdout`, `Deno.stderr`, a file. */
export interface SyncWriter {
  writeSync(bytes: Uint8Array): number;
}

/** Writes every byte of `data` (one `writeSync` may take only part of it). */
export function writeAllSync(out: SyncWriter, data: Uint8Array | string): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  for (let at = 0; at < bytes.length;) at += out.writeSync(bytes.subarray(at));
}
