/** SHA-256 digests as lowercase hex: what svc's approvals, caches and markers are keyed by. */

/** SHA-256 of `text` (UTF-8), as 64 lowercase hex digits. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
