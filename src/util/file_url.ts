/**
 * `file:` URLs and POSIX paths, converted as `node:url` converts them (tests/util/file_url.test.ts
 * compares them), without loading Deno's Node layer (see src/util/posix_path.ts).
 */
import { resolve } from "./posix_path.ts";

/** The path a `file:` URL names; throws a TypeError for another scheme, a host or an encoded `/`. */
export function fileURLToPath(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") throw new TypeError(`The URL must be of scheme file: ${url}`);
  if (parsed.hostname !== "") {
    throw new TypeError(`File URL host must be "localhost" or empty: ${url}`);
  }
  if (/%2f/i.test(parsed.pathname)) {
    throw new TypeError(`File URL path must not include encoded / characters: ${url}`);
  }
  return decodeURIComponent(parsed.pathname);
}

const UTF8 = new TextEncoder();

/** What stays as it is in the URL's path: letters, digits, `/` and `!$&'()*+,-.:;=@_`. */
const KEPT = /[A-Za-z0-9/!$&'()*+,\-.:;=@_]/;

/**
 * The `file:` URL of `path` (resolved against the working directory; a trailing slash kept). Every
 * other character is percent-encoded as UTF-8, so nothing in a name reads as URL syntax (`#`, `?`,
 * `%`, `\`, `|`).
 */
export function pathToFileURL(path: string): URL {
  let resolved = resolve(path);
  if (path.endsWith("/") && !resolved.endsWith("/")) resolved += "/";
  let encoded = "";
  for (const char of resolved) {
    if (KEPT.test(char)) encoded += char;
    else {for (const byte of UTF8.encode(char)) {
        encoded += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      }}
  }
  return new URL(`file://${encoded}`);
}
