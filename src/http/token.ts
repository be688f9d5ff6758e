import { createHash, timingSafeEqual } from "node:crypto";
import { dirname, join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { checkPrivate } from "../util/private_file.ts";

/** Shortest accepted token, in characters. */
export const MIN_TOKEN_LENGTH = 16;

/** Where `svc serve` keeps its bearer token unless `--token-file` names another file. */
export function defaultTokenPath(): string {
  return join(globalConfigDir(), "serve_token");
}

/**
 * The token in `path`, creating the file first when it does not exist: 32 random bytes as 64 hex
 * digits, mode 0600 (its folder 0700). The file appears complete or not at all (written aside,
 * then hard-linked into place), so two servers starting at once agree on the first one's token.
 */
export async function loadOrCreateToken(
  path: string,
): Promise<{ token: string; created: boolean }> {
  // A folder another user can write is refused before a token is made in it, too.
  checkPrivate(path);
  if (!(await exists(path))) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    const aside = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await Deno.writeTextFile(aside, `${token}\n`, { createNew: true, mode: 0o600 });
      await Deno.chmod(aside, 0o600); // the umask must not widen it
      await Deno.link(aside, path);
      return { token, created: true };
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) {
        throw new Error(`Cannot create the token file ${path}: ${(err as Error).message}`);
      }
    } finally {
      await Deno.remove(aside).catch(() => {});
    }
  }
  return { ...(await readTokenFile(path)), created: false };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw new Error(`Cannot read the token file ${path}: ${(err as Error).message}`);
  }
}

/**
 * Reads a bearer token from a file (surrounding whitespace trimmed). Throws when the file is
 * unreadable, the token is shorter than MIN_TOKEN_LENGTH or holds whitespace, and (UnsafeFileError)
 * when the file or its folder breaks the rule of every file svc reads its secrets and config from
 * (private_file.ts): owned by this user or root and not writable by group or others, so a
 * read-only secret mounted by root passes. The token itself never appears in an error.
 */
export async function readTokenFile(path: string): Promise<{ token: string }> {
  checkPrivate(path);
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
  return { token };
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
