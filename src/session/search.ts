/**
 * Full-text search over the saved sessions of a folder (`svc sessions search`): prompts, answers
 * and tool output, case-insensitive. Fast on many sessions because a file is parsed only when its
 * raw text can match: each file is read whole (up to a cap) and searched for the text as JSON
 * writes it, which rules most files out without a JSON.parse; the candidates are ranked by that
 * raw count and recency, and only as many are parsed as the results need.
 */
import { mtimeOf, type SessionFile, sessionFiles } from "./listing.ts";
import type { SessionMessage } from "./types.ts";

/** One matching line of a message. */
export interface SearchHit {
  /** The message's index in the session. */
  index: number;
  role: string;
  /** Tool messages: the tool's name. */
  tool?: string;
  /** The line, cut around its first match (`...` where cut). */
  text: string;
}

/** One session that matches, with its first matching lines. */
export interface SessionMatch {
  name: string;
  path: string;
  size_bytes: number;
  updated_at: string;
  /** Occurrences of the text in the session's prompts, answers and tool output. */
  matches: number;
  /** Messages that contain it. */
  messages: number;
  /** `matches` halved for every HALF_LIFE_DAYS of age: what the results are sorted by. */
  score: number;
  hits: SearchHit[];
}

export interface SearchReport {
  results: SessionMatch[];
  /** Session files read. */
  scanned: number;
  /** Files whose raw text matched (parsed only as far as the results needed). */
  candidates: number;
  /** Files left out: larger than the cap, unreadable or not a session. */
  skipped: Array<{ name: string; reason: string }>;
}

export interface SearchOptions {
  /** Most sessions returned. */
  limit: number;
  /** Most lines kept per session (default 5). */
  hits?: number;
  /** Largest file read (default MAX_SEARCH_BYTES). */
  maxFileBytes?: number;
  /** Now in ms (default Date.now()): the age of a session for its score. */
  now?: number;
}

/** A session matched today counts twice one matched this many days ago. */
export const HALF_LIFE_DAYS = 30;

/** Largest session file searched: bigger ones are skipped and named in the report. */
export const MAX_SEARCH_BYTES = 32 << 20;

/** Characters kept on each side of a match in a shown line. */
const CONTEXT_CHARS = 50;

/** Searches every session file of `dir` for `text` (case-insensitive). */
export function searchSessions(dir: string, text: string, options: SearchOptions): SearchReport {
  const now = options.now ?? Date.now();
  const raw = new RegExp(escapeRegExp(JSON.stringify(text).slice(1, -1)), "gi");
  const report: SearchReport = { results: [], scanned: 0, candidates: 0, skipped: [] };
  const candidates: Array<{ file: SessionFile; score: number }> = [];
  const cap = options.maxFileBytes ?? MAX_SEARCH_BYTES;
  const decoder = new TextDecoder();
  const reader = new Reader(cap, report);
  for (const file of sessionFiles(dir, { stat: false })) {
    const body = reader.read(file);
    if (body === null) continue;
    report.scanned++;
    const content = decoder.decode(body);
    raw.lastIndex = 0;
    if (!raw.test(content)) continue;
    raw.lastIndex = 0;
    const count = content.match(raw)?.length ?? 0;
    if (!stamp(file)) continue;
    candidates.push({ file, score: decayed(count, file.mtime, now) });
  }
  report.candidates = candidates.length;
  candidates.sort((a, b) => b.score - a.score || b.file.mtime - a.file.mtime);
  // A raw count counts matches in names, timestamps and the like too, so it only ever
  // overestimates: a candidate's exact score is at most its raw one, which bounds the search.
  const found: SessionMatch[] = [];
  for (const candidate of candidates) {
    const floor = found.length >= options.limit ? found[options.limit - 1].score : -1;
    if (candidate.score < floor) break;
    // Read again rather than kept: a common word would keep every file in memory.
    const body = reader.read(candidate.file);
    if (body === null) continue;
    const match = matchSession(candidate.file, decoder.decode(body), {
      text,
      maxHits: options.hits ?? 5,
    });
    if (!match) {
      report.skipped.push({ name: candidate.file.name, reason: "not a session document" });
      continue;
    }
    if (!match.matches) continue;
    match.score = decayed(match.matches, candidate.file.mtime, now);
    found.push(match);
    found.sort((a, b) => b.score - a.score || (a.updated_at < b.updated_at ? 1 : -1));
  }
  report.results = found.slice(0, options.limit);
  return report;
}

/**
 * Reads whole files into one buffer that grows as needed up to the cap, so a search over many
 * files allocates next to nothing; the size and mtime are taken only for the files that match.
 */
class Reader {
  #buffer = new Uint8Array(256 << 10);
  constructor(readonly cap: number, readonly report: SearchReport) {}

  /** The file's bytes (valid until the next read), or null when it is skipped. */
  read(file: SessionFile): Uint8Array | null {
    try {
      using handle = Deno.openSync(file.path, { read: true });
      let used = 0;
      while (used <= this.cap) {
        if (used === this.#buffer.length) {
          const grown = new Uint8Array(Math.min(used * 2, this.cap + 1));
          grown.set(this.#buffer);
          this.#buffer = grown;
        }
        const n = handle.readSync(this.#buffer.subarray(used, this.cap + 1));
        if (n === null) break;
        used += n;
      }
      if (used > this.cap) {
        const limit = this.cap >= 1 << 20 ? `${this.cap >> 20} MiB` : `${this.cap} bytes`;
        this.report.skipped.push({ name: file.name, reason: `larger than ${limit}` });
        return null;
      }
      return this.#buffer.subarray(0, used);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null; // removed since the listing
      this.report.skipped.push({ name: file.name, reason: (err as Error).message });
      return null;
    }
  }
}

/** Fills in the file's size and last write; false when it is gone. */
function stamp(file: SessionFile): boolean {
  try {
    const info = Deno.statSync(file.path);
    file.size = info.size;
    file.mtime = mtimeOf(info);
    return true;
  } catch {
    return false;
  }
}

/** The session's exact matches in prompts, answers and tool output; null if it does not parse. */
function matchSession(
  file: SessionFile,
  body: string,
  { text, maxHits }: { text: string; maxHits: number },
): SessionMatch | null {
  const exact = new RegExp(escapeRegExp(text), "gi");
  const plain = new RegExp(escapeRegExp(text.replaceAll("\n", " ")), "i");
  let messages: SessionMessage[];
  try {
    messages = JSON.parse(body).messages;
    if (!Array.isArray(messages)) return null;
  } catch {
    return null;
  }
  const match: SessionMatch = {
    name: file.name,
    path: file.path,
    size_bytes: file.size,
    updated_at: new Date(file.mtime).toISOString(),
    matches: 0,
    messages: 0,
    score: 0,
    hits: [],
  };
  messages.forEach((message, index) => {
    if (!SEARCHED.has(message?.role) || typeof message.content !== "string") return;
    exact.lastIndex = 0;
    const count = message.content.match(exact)?.length ?? 0;
    if (!count) return;
    match.matches += count;
    match.messages++;
    // A text with a line end matches across lines: its lines are shown joined.
    const lines = text.includes("\n")
      ? [message.content.replaceAll("\n", " ")]
      : message.content.split("\n");
    for (const line of lines) {
      if (match.hits.length >= maxHits) break;
      const found = plain.exec(line);
      if (!found) continue;
      match.hits.push({
        index,
        role: message.role,
        ...(message.role === "tool" && message.name ? { tool: message.name } : {}),
        text: excerpt(line, found.index, found.index + found[0].length),
      });
    }
  });
  return match;
}

/** Roles whose content is searched: prompts, answers, tool output. */
const SEARCHED = new Set(["user", "assistant", "tool"]);

/** `line` cut to CONTEXT_CHARS around the match at [start, end), trimmed. */
function excerpt(line: string, start: number, end: number): string {
  const from = Math.max(0, start - CONTEXT_CHARS);
  const to = Math.min(line.length, end + CONTEXT_CHARS);
  const head = from > 0 ? "..." : "";
  const tail = to < line.length ? "..." : "";
  return `${head}${line.slice(from, to).trim()}${tail}`;
}

/** `count` halved for every HALF_LIFE_DAYS of age. */
function decayed(count: number, mtime: number, now: number): number {
  const days = Math.max(0, now - mtime) / 86_400_000;
  return count * 0.5 ** (days / HALF_LIFE_DAYS);
}

/** `text` as a literal inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
