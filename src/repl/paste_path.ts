/**
 * A paste that is nothing but file paths: what a terminal pastes when files are dragged onto it.
 * Each path is quoted (`'/tmp/my shot.png'`, `"..."`), written with backslash escapes
 * (`/tmp/my\ shot.png`), or a `file://` URL (percent-encoded); paths are separated by white space.
 * Only paths that cannot be ordinary words count: absolute, `~/...`, `./...` or `../...`. Pure
 * string work, no I/O (the REPL imports it at start): pasted_image.ts then reads the files.
 */

/** A paste longer than this is never taken for paths. */
const MAX_PASTE = 8192;

/**
 * The paths `text` is made of, in order (`~/` and relative ones as written); null when any part
 * of it is not a path (then it is pasted as text).
 */
export function pastedPaths(text: string): string[] | null {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > MAX_PASTE || trimmed.includes("\0")) return null;
  const words = shellWords(trimmed);
  if (!words?.length) return null;
  const paths: string[] = [];
  for (const word of words) {
    const path = word.startsWith("file://") ? fileUrlPath(word) : word;
    if (path === null || !/^(\/|~\/|\.\.?\/)/.test(path)) return null;
    paths.push(path);
  }
  return paths;
}

/** `text` split as a POSIX shell splits words (quotes and backslashes); null if a quote is open. */
export function shellWords(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    word ??= "";
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      word += text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && /["\\$`]/.test(text[j + 1] ?? "")) j++;
        word += text[j];
      }
      if (j >= text.length) return null;
      i = j;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
    } else word += c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The local path of a `file://` URL (host empty or localhost); null for anything else. */
function fileUrlPath(word: string): string | null {
  try {
    const url = new URL(word);
    if (url.host !== "" && url.host !== "localhost") return null;
    if (url.search || url.hash) return null;
    return decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
}
