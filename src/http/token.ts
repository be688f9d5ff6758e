import { createHash, timingSafeEqual } from "node:crypto";

/** Shortest accepted token, in characters. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Reads a bearer token from a file (surrounding whitespace trimmed). Throws when the file is
 * unreadable, the token is shorter than MIN_TOKEN_LENGTH or holds whitespace. The token itself
 * never appears in an error or warning.
 */
export async function readTokenFile(path: string): Promise<{ token: string; warning?: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(`Cannot read the token file ${path}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(
      `The token file ${path} must hold one token of at least ${MIN_TOKEN_LENGTH} characters without spaces`,
    );
  }
  const mode = (await Deno.stat(path)).mode;
  const warning = mode !== null && (mode & 0o077) !== 0
    ? `the token file ${path} is readable by other users; chmod 600 it`
    : undefined;
  return { token, warning };
}

/**
 * A checker of `Authorization: Bearer <token>` values that compares SHA-256 digests in constant
 * time, so neither the token's content nor its length leaks through timing.
 */
export function bearerChecker(token: string): (authorization: string | null) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
    const given = digest(match ? match[1] : "");
    return timingSafeEqual(given, expected) && match !== null;
  };
}

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
