import { concatBytes } from "./byte_list.ts";

/**
 * Reads at most `maxBytes` of a response body and cancels the rest, so an endless or enormous
 * body from a broken or hostile server costs bounded memory; `truncated` says more was sent.
 */
export async function readBodyCapped(
  res: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total <= maxBytes) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = concatBytes(chunks).subarray(0, Math.min(total, maxBytes));
  return { text: new TextDecoder().decode(bytes), truncated: total > maxBytes };
}
