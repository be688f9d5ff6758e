/** The two grep engines, ripgrep and in-process, which must agree on every match they report. */
import { join } from "../../../src/plugin/api.ts";
import { GREP_MAX_FILE_BYTES } from "./common.ts";
import { runRipgrep } from "./ripgrep.ts";
import { pathMatcher, TimeSlice, walkFiles } from "./walk.ts";
import { cutText } from "../../../src/tool/text.ts";

/** Longest line text kept per match. */
const MAX_TEXT = 300;

/** One matching line; `path` is relative to the search root. */
export interface Match {
  path: string;
  line: number;
  text: string;
}

/** What to search: a JS-valid `regex` and its source for ripgrep, an optional file glob. */
export interface GrepQuery {
  source: string;
  regex: RegExp;
  glob?: string;
}

/** Keeps the first `limit` matches in (path, line) order and counts all of them. */
export class MatchSet {
  total = 0;
  private items: Match[] = [];
  /** The last kept match once the set has been trimmed; anything after it is only counted. */
  private worst: Match | null = null;
  constructor(readonly limit: number) {}

  add(path: string, line: number, text: string): void {
    this.total++;
    const worst = this.worst;
    if (worst && (path > worst.path || (path === worst.path && line > worst.line))) return;
    const trimmed = text.trim();
    const cut = trimmed.length > MAX_TEXT ? `${cutText(trimmed, MAX_TEXT)}...` : trimmed;
    this.items.push({ path, line, text: cut });
    if (this.items.length >= this.limit * 8) this.trim();
  }

  /** The kept matches, sorted. */
  sorted(): Match[] {
    this.trim();
    return this.items;
  }

  private trim(): void {
    this.items.sort(compareMatches);
    if (this.items.length < this.limit) return;
    this.items.length = this.limit;
    this.worst = this.items[this.limit - 1];
  }
}

function compareMatches(a: Match, b: Match): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
}

/**
 * Searches `root` with ripgrep. Returns false when ripgrep is missing or rejects the regex
 * (the caller then searches in-process), true when `matches` holds the result.
 */
export async function searchRipgrep(
  root: string,
  query: GrepQuery,
  { matches, signal }: { matches: MatchSet; signal: AbortSignal },
): Promise<boolean> {
  const args = ["--line-number", "--with-filename", "--no-heading", "--color", "never", "--crlf"];
  args.push("--max-filesize", `${GREP_MAX_FILE_BYTES}`);
  if (query.regex.flags.includes("i")) args.push("--ignore-case");
  if (query.glob) args.push("--glob", query.glob);
  args.push("--regexp", query.source);
  // Output for one file is contiguous; a file found binary after a match is dropped whole.
  let buffer = "";
  let file = "";
  let pending: Array<[number, string]> = [];
  const flush = () => {
    for (const [line, text] of pending) matches.add(file, line, text);
    pending = [];
  };
  const run = await runRipgrep(root, args, {
    signal,
    onText: (text) => {
      buffer += text;
      let start = 0;
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n", start)) {
        const record = buffer.slice(start, nl);
        start = nl + 1;
        const nul = record.indexOf("\0");
        if (nul === -1) {
          if (record.startsWith(`./${file}: WARNING: stopped searching binary`)) pending = [];
          continue;
        }
        const path = record.startsWith("./") ? record.slice(2, nul) : record.slice(0, nul);
        const colon = record.indexOf(":", nul);
        if (path !== file) flush();
        file = path;
        pending.push([Number(record.slice(nul + 1, colon)), record.slice(colon + 1)]);
      }
      buffer = buffer.slice(start);
    },
  });
  if (run === null) return false;
  if (run.code === 2 && /regex|literal/i.test(run.stderr)) return false;
  flush();
  return true;
}

/** Searches `root` in-process with the same file rules as ripgrep's run above. */
export async function searchInProcess(
  root: string,
  query: GrepQuery,
  { matches, signal }: { matches: MatchSet; signal: AbortSignal },
): Promise<void> {
  const isMatch = query.glob ? await pathMatcher(query.glob) : () => true;
  const files = await walkFiles(root, signal);
  const lookaround = /\(\?<?[!=]/.test(query.source);
  const whole = lookaround ? null : new RegExp(query.source, `${query.regex.flags}m`);
  const slice = new TimeSlice(signal);
  for (const path of files) {
    await slice.tick();
    if (isMatch(path)) searchFile(join(root, path), { path, regex: query.regex, whole, matches });
  }
}

const buffer = new Uint8Array(GREP_MAX_FILE_BYTES + 1);
const decoder = new TextDecoder();

/**
 * Searches one file synchronously (callers slice the work), skipping it when it is larger than
 * the grep size cap, binary (holds a NUL byte) or unreadable. `whole` is an optional prefilter.
 */
export function searchFile(
  abs: string,
  { path, regex, whole, matches }: {
    /** `abs` as shown, relative to the search root. */
    path: string;
    regex: RegExp;
    whole: RegExp | null;
    matches: MatchSet;
  },
): void {
  let size = 0;
  try {
    using file = Deno.openSync(abs, { read: true });
    while (size < buffer.length) {
      const read = file.readSync(buffer.subarray(size));
      if (read === null) break;
      size += read;
    }
  } catch {
    return;
  }
  if (size > GREP_MAX_FILE_BYTES) return;
  const bytes = buffer.subarray(0, size);
  if (bytes.includes(0)) return;
  const text = decoder.decode(bytes);
  if (whole && !whole.test(text)) return;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    if (regex.test(line)) matches.add(path, i + 1, line);
  }
}
