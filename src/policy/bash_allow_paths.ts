/**
 * Which paths an argument word may name once bash has expanded it (brace lists, tilde, globs) and
 * the program has read it (the whole word, an option's attached value, a `name=value` value), and
 * whether any of them lands outside the worktree. Every resolution spends the decision's budget.
 */
import { join } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import {
  type Budget,
  BudgetExceeded,
  MAX_ALTERNATIVES,
  MAX_PATH_CHARS,
} from "./bash_allow_budget.ts";
import type { Word } from "./bash_allow_lex.ts";
import { pointsOutside } from "./scope.ts";

/** A piece of a word: its text and its mask (quoted characters are NUL, as in `Word.mask`). */
interface Piece {
  text: string;
  mask: string;
}

/** Devices that read or write nothing of the user's. */
const DEVICES = new Set([
  "/dev/null",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
]);

const GLOB = /[*?[]/;

type Kind = "dir" | "link" | "other";

/**
 * Resolves paths for one decision, spending its budget. Relative paths without `..` are walked
 * through cached folder listings (no system call per word); anything else (absolute paths, `..`,
 * symlinks, names a case-insensitive disk might fold) goes through `canonicalPath`.
 */
export class PathJudge {
  #listings = new Map<string, Map<string, Kind> | null>();
  #folded = new Map<string, Set<string>>();
  #memo = new Map<string, string | null>();
  /** Verdicts of whole candidates, keyed by folder, mask and text. */
  readonly verdicts = new Map<string, boolean>();

  constructor(readonly root: string, readonly budget: Budget) {}

  /** The canonical form of `path` from the canonical folder `cwd`; null when unresolvable. */
  resolve(cwd: string, path: string): string | null {
    if (path.length > MAX_PATH_CHARS) {
      throw new BudgetExceeded(`a path is longer than ${MAX_PATH_CHARS} characters`);
    }
    const key = cwd + "\0" + path;
    const known = this.#memo.get(key);
    if (known !== undefined) return known;
    this.budget.spend(1);
    let result: string | null | undefined = this.#walk(cwd, path);
    if (result === undefined) {
      // System calls that fail cost far more than a cached lookup.
      this.budget.spend(16 + segments(path));
      try {
        result = canonicalPath(cwd, path);
      } catch {
        result = null;
      }
    }
    this.#memo.set(key, result);
    return result;
  }

  /** Whether `path` from `cwd` lands outside the worktree (unresolvable counts as outside). */
  outside(cwd: string, path: string): boolean {
    const real = this.resolve(cwd, path);
    return real === null || !isInside(this.root, real);
  }

  /** The names in the canonical folder `dir`; empty when it cannot be read. */
  names(dir: string): string[] {
    return [...(this.#list(dir)?.keys() ?? [])];
  }

  /** The fast path: undefined when it cannot be sure. */
  #walk(cwd: string, path: string): string | undefined {
    if (path.startsWith("/") || path.includes("\0") || !/^[\x20-\x7e]*$/.test(path)) return;
    const parts = path.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..")) return;
    let exists = true;
    let dir = cwd;
    for (let i = 0; i < parts.length && exists; i++) {
      const listing = this.#list(dir);
      if (!listing) return;
      const kind = listing.get(parts[i]);
      if (kind === "link" || (!kind && this.#folded.get(dir)?.has(parts[i].toLowerCase()))) return;
      exists = kind === "dir";
      dir = join(dir, parts[i]);
    }
    return parts.length ? join(cwd, ...parts) : cwd;
  }

  #list(dir: string): Map<string, Kind> | null {
    if (this.#listings.has(dir)) return this.#listings.get(dir)!;
    let listing: Map<string, Kind> | null = new Map();
    const folded = new Set<string>();
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (listing.size % 16 === 0) this.budget.spend(1);
        listing.set(entry.name, entry.isSymlink ? "link" : entry.isDirectory ? "dir" : "other");
        folded.add(entry.name.toLowerCase());
      }
    } catch {
      listing = null;
    }
    this.#listings.set(dir, listing);
    this.#folded.set(dir, folded);
    return listing;
  }
}

/** Number of `/`-separated parts of `path`. */
function segments(path: string): number {
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path[i] === "/") n++;
  return n;
}
const SEQUENCE = /^(-?\d+\.\.-?\d+|[A-Za-z]\.\.[A-Za-z])(\.\.-?\d+)?$/;

/** The folders a segment may run in, and the judge of the paths it names from there. */
export interface PathsFrom {
  cwds: string[];
  judge: PathJudge;
}

/**
 * Why `word` may name a path outside the worktree from any of `cwds`, or null. Variables may hold
 * any path; a tilde expands to a home folder; globs are matched against the real folders.
 */
export function wordOutside(word: Word, { cwds, judge }: PathsFrom): string | null {
  if (word.variable) return `uses a variable that may name a path outside the worktree`;
  for (const alt of braceAlternatives({ text: word.text, mask: word.mask }, judge.budget)) {
    if (/(^|[=:])~/.test(alt.mask)) return "names a path outside the worktree";
    for (const candidate of candidates(alt)) {
      if (cwds.some((cwd) => pieceOutside(candidate, cwd, judge))) {
        return "names a path outside the worktree";
      }
    }
  }
  return null;
}

/** Whether a literal path (a file named inside a sed script) lands outside from any of `cwds`. */
export function literalOutside(path: string, { cwds, judge }: PathsFrom): boolean {
  const piece = { text: path, mask: "\0".repeat(path.length) };
  return cwds.some((cwd) => pieceOutside(piece, cwd, judge));
}

/**
 * The strings a program may open as paths: the word itself (globbed by bash), the value after its
 * first `=` and, for a short option cluster, each tail that may be an attached value (`-C..`).
 * Only the whole word is globbed; the others reach the program as they are.
 */
function candidates(alt: Piece): Piece[] {
  const { text } = alt;
  if (text === "" || text === "-" || text === "--") return [];
  const out: Piece[] = [alt];
  const tail = (from: number) => {
    const rest = text.slice(from);
    return { text: rest, mask: "\0".repeat(rest.length) };
  };
  const eq = text.indexOf("=");
  if (eq >= 0 && eq + 1 < text.length) out.push(tail(eq + 1));
  if (text.startsWith("-") && !text.startsWith("--")) {
    for (let i = 1; i < text.length; i++) out.push(tail(i));
  }
  return out;
}

/** Whether one candidate lands outside from `cwd`; unquoted globs are matched for real. */
function pieceOutside(piece: Piece, cwd: string, judge: PathJudge): boolean {
  judge.budget.spend(1);
  const key = `${cwd}\0${piece.mask}\0${piece.text}`;
  let outside = judge.verdicts.get(key);
  if (outside === undefined) {
    outside = judgePiece(piece, cwd, judge);
    judge.verdicts.set(key, outside);
  }
  return outside;
}

function judgePiece(piece: Piece, cwd: string, judge: PathJudge): boolean {
  const { text } = piece;
  if (DEVICES.has(text)) return false;
  // Unmatched globs reach the program as typed, so the literal text is always checked.
  if (judge.outside(cwd, text)) return true;
  if (!GLOB.test(piece.mask)) return false;
  judge.budget.spend(4 + segments(text));
  if (pointsOutside(judge.root, [text], cwd)) return true;
  return globOutside(piece, cwd, judge);
}

/**
 * Expands the glob segment by segment against the real folders: a segment that could match `..`
 * (older bash, sh) or a match that is a symlink leading outside makes it outside.
 */
function globOutside(piece: Piece, cwd: string, judge: PathJudge): boolean {
  const parts: Piece[] = [];
  let at = 0;
  for (const part of piece.text.split("/")) {
    parts.push({ text: part, mask: piece.mask.slice(at, at + part.length) });
    at += part.length + 1;
  }
  const first = parts.findIndex((p) => GLOB.test(p.mask));
  const prefix = parts.slice(0, first).map((p) => p.text).join("/");
  const start = judge.resolve(cwd, prefix || (piece.text.startsWith("/") ? "/" : "."));
  if (start === null || !isInside(judge.root, start)) return true;
  let dirs = [start];
  for (const seg of parts.slice(first)) {
    const next: string[] = [];
    if (!GLOB.test(seg.mask)) {
      for (const dir of dirs) {
        const real = judge.resolve(dir, seg.text || ".");
        if (real === null || !isInside(judge.root, real)) return true;
        next.push(real);
      }
    } else {
      if (matches(seg, 0, "..", 0)) return true;
      for (const dir of dirs) {
        const names = judge.names(dir);
        judge.budget.spend(1 + (names.length >> 4));
        for (const name of names) {
          if (!matches(seg, 0, name, 0)) continue;
          // Entries that are not symlinks stay in their (inside) folder; links are resolved.
          const real = judge.resolve(dir, name);
          if (real === null || !isInside(judge.root, real)) return true;
          next.push(real);
        }
      }
    }
    dirs = next;
    if (!dirs.length) return false;
  }
  return false;
}

/**
 * Glob match of `seg` from `i` against `name` from `j`: `*`, `?` and any bracket expression (taken
 * as any one character); a leading dot must be matched by a literal dot, as bash requires.
 */
function matches(seg: Piece, i: number, name: string, j: number): boolean {
  if (j === 0 && name.startsWith(".") && seg.text[0] !== ".") return false;
  // Iterative star matching: linear in practice, no exponential backtracking.
  let star = -1, mark = 0;
  while (j < name.length) {
    const m = seg.mask[i];
    if (m === "*") {
      star = ++i;
      mark = j;
      continue;
    }
    const width = m === "[" ? bracketWidth(seg.mask, i) : 0;
    if (i < seg.text.length && (m === "?" || width > 0 || seg.text[i] === name[j])) {
      i += width || 1;
      j++;
    } else if (star >= 0) {
      i = star;
      j = ++mark;
    } else return false;
  }
  while (seg.mask[i] === "*") i++;
  return i >= seg.text.length;
}

/** Length of the bracket expression starting at `i`, or 0 when `[` is a plain character. */
function bracketWidth(mask: string, i: number): number {
  let k = i + 1;
  if (mask[k] === "!" || mask[k] === "^") k++;
  if (mask[k] === "]") k++;
  const close = mask.indexOf("]", k);
  return close < 0 ? 0 : close - i + 1;
}

/**
 * The words bash makes of `word` by brace expansion (`{a,b}`, nested, `{1..9}` folded to one
 * representative, since sequences yield only letters and digits). At most `MAX_ALTERNATIVES`.
 */
export function braceAlternatives(word: Piece, budget: Budget): Piece[] {
  const out: Piece[] = [];
  const todo = [word];
  while (todo.length) {
    const piece = todo.pop()!;
    budget.spend(1 + Math.floor(piece.text.length / 256));
    const brace = firstBrace(piece.mask);
    if (!brace) {
      out.push(piece);
      if (out.length > MAX_ALTERNATIVES) {
        throw new BudgetExceeded(`a word expands to more than ${MAX_ALTERNATIVES} alternatives`);
      }
      continue;
    }
    const { open, close, commas } = brace;
    const cut = (from: number, to: number) => ({
      text: piece.text.slice(from, to),
      mask: piece.mask.slice(from, to),
    });
    const before = cut(0, open), after = cut(close + 1, piece.text.length);
    const bounds = commas.length ? [open, ...commas, close] : [];
    const alts = commas.length
      ? bounds.slice(1).map((end, k) => cut(bounds[k] + 1, end))
      : [/\d/.test(piece.text[open + 1] ?? "") || piece.text[open + 1] === "-" ? "0" : "a"]
        .map((text) => ({ text, mask: text }));
    for (const alt of alts.reverse()) {
      todo.push({
        text: before.text + alt.text + after.text,
        mask: before.mask + alt.mask + after.mask,
      });
    }
  }
  return out.reverse();
}

/**
 * The first brace expression bash would expand: an unquoted `{` (not `${`) with its matching `}`
 * and a top-level comma or a sequence body. One pass with a stack, so it stays linear.
 */
function firstBrace(mask: string): { open: number; close: number; commas: number[] } | null {
  const opens: { at: number; commas: number[]; param: boolean }[] = [];
  let best: { open: number; close: number; commas: number[] } | null = null;
  for (let i = 0; i < mask.length; i++) {
    const c = mask[i];
    if (c === "{") opens.push({ at: i, commas: [], param: mask[i - 1] === "$" });
    else if (c === "," && opens.length) opens[opens.length - 1].commas.push(i);
    else if (c === "}" && opens.length) {
      const o = opens.pop()!;
      if (o.param || (best && best.open < o.at)) continue;
      if (o.commas.length || SEQUENCE.test(mask.slice(o.at + 1, i))) {
        best = { open: o.at, close: i, commas: o.commas };
      }
    }
  }
  return best;
}
