/**
 * A quote-aware lexer for the subset of bash that bash_allow understands: words, quotes,
 * simple `$NAME` expansions, list and pipe operators and simple redirections. Everything else
 * is an error naming the rule it breaks, so the caller fails closed.
 */
import type { RuleId } from "./bash_allow_rules.ts";

/** One shell word after quote removal (expansions are kept verbatim). */
export interface Word {
  text: string;
  /** Holds a `$` expansion, a brace expansion or a leading tilde. */
  expands: boolean;
  /** Holds an unquoted `*`, `?` or `[`. */
  glob: boolean;
  /** Holds a `$NAME` or `${NAME}` expansion, whose value may be any path. */
  variable: boolean;
  /** `text` with every quoted character replaced by NUL: what bash may still expand. */
  mask: string;
}

/** A redirection; `target` is absent for descriptor duplication such as `2>&1`. */
export interface Redirect {
  op: string;
  write: boolean;
  target?: Word;
}

/** One simple command between list or pipe operators. */
export interface Segment {
  words: Word[];
  redirects: Redirect[];
  /** The operator before this segment (`&&`, `||`, `;`, `&`, `|`, `|&`); absent for the first. */
  op?: string;
}

/** Segments of a command, or the rule that rejects it. */
export type LexResult = { segments: Segment[] } | { error: RuleId; detail?: string };

// Quoted characters are recorded as NUL in `unq`; the input never holds control characters.
const QUOTED = "\0";
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits `src` into segments; rejects syntax it does not fully understand. */
// One piece: a lexer's state machine; its quote, word and segment state is shared by every branch.
export function lexCommand(src: string): LexResult {
  if (/[\n\r]/.test(src)) return { error: "multiline" };
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(src)) return { error: "control" };
  const segments: Segment[] = [];
  let seg: Segment = { words: [], redirects: [] };
  let text = "", unq = "", started = false, expands = false, variable = false;
  let pending: Redirect | null = null;
  let needNext = false;
  let op: string | undefined;

  const finishWord = () => {
    if (!started) return;
    const word: Word = {
      text,
      expands: expands || hasBraceList(unq) || unq.startsWith("~"),
      glob: /[*?[]/.test(unq),
      variable,
      mask: unq,
    };
    if (pending) {
      pending.target = word;
      seg.redirects.push(pending);
      pending = null;
    } else seg.words.push(word);
    text = unq = "";
    started = expands = variable = false;
  };
  const add = (value: string, quoted: boolean) => {
    text += value;
    unq += quoted ? QUOTED.repeat(value.length) : value;
    started = true;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t") {
      finishWord();
      i++;
    } else if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) return { error: "quote" };
      add(src.slice(i + 1, close), true);
      started = true;
      i = close + 1;
    } else if (c === '"') {
      started = true;
      let j = i + 1;
      for (;;) {
        const d = src[j];
        if (d === undefined) return { error: "quote" };
        if (d === '"') break;
        if (d === "`") return { error: "substitution" };
        if (d === "\\") {
          const n = src[j + 1];
          if (n === undefined) return { error: "quote" };
          add('$`"\\'.includes(n) ? n : d + n, true);
          j += 2;
        } else if (d === "$") {
          const r = dollar(src, j, true);
          if ("error" in r) return r;
          add(src.slice(j, j + r.len), true);
          expands ||= r.expands;
          variable ||= r.variable;
          j += r.len;
        } else {
          add(d, true);
          j++;
        }
      }
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= src.length) return { error: "quote" };
      add(src[i + 1], true);
      i += 2;
    } else if (c === "`") {
      return { error: "substitution" };
    } else if (c === "$") {
      const r = dollar(src, i, false);
      if ("error" in r) return r;
      add(src.slice(i, i + r.len), false);
      expands ||= r.expands;
      variable ||= r.variable;
      i += r.len;
    } else if (c === "#" && !started) {
      return { error: "comment" };
    } else if (c === "(" || c === ")") {
      return { error: "subshell" };
    } else if (c === "<" || c === ">" || (c === "&" && src[i + 1] === ">")) {
      let fd = "";
      if (started && c !== "&" && !expands && /^\d+$/.test(unq)) {
        fd = text;
        text = unq = "";
        started = false;
      } else if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(unq)) return { error: "syntax" };
      finishWord();
      if (pending) return { error: "syntax" };
      const r = redirection(src, i, fd);
      if ("error" in r) return r;
      if (r.redirect.write || r.redirect.op === "<") pending = r.redirect;
      else seg.redirects.push(r.redirect);
      i += r.len;
    } else if (c === ";" || c === "&" || c === "|") {
      finishWord();
      if (pending) return { error: "syntax" };
      const two = src.slice(i, i + 2);
      if (two === ";;" || two === ";&") return { error: "syntax" };
      const next = ["&&", "||", "|&"].includes(two) ? two : c;
      if (!seg.words.length && !seg.redirects.length) return { error: "syntax" };
      segments.push(op ? { ...seg, op } : seg);
      seg = { words: [], redirects: [] };
      op = next;
      needNext = op !== ";" && op !== "&";
      i += op.length;
    } else {
      add(c, false);
      i++;
    }
  }
  finishWord();
  if (pending) return { error: "syntax" };
  if (seg.words.length || seg.redirects.length) segments.push(op ? { ...seg, op } : seg);
  else if (needNext) return { error: "syntax" };
  if (!segments.length) return { error: "empty" };
  return { segments };
}

type DollarResult = { len: number; expands: boolean; variable: boolean } | { error: RuleId };

/** Whether an unquoted `{` is followed by `,` or `..` and then `}` (linear, unlike a regex). */
function hasBraceList(unq: string): boolean {
  const open = unq.indexOf("{");
  if (open < 0) return false;
  const comma = unq.indexOf(",", open + 1);
  const dots = unq.indexOf("..", open + 1);
  const sep = comma < 0 ? dots : dots < 0 ? comma : Math.min(comma, dots);
  return sep >= 0 && unq.lastIndexOf("}") > sep;
}

/** Reads the `$` form at `i`: plain names and special parameters pass, the rest is an error. */
function dollar(src: string, i: number, inQuotes: boolean): DollarResult {
  const n = src[i + 1];
  if (n === "(" || n === "[") return { error: "substitution" };
  if (n === "{") {
    const close = src.indexOf("}", i + 2);
    if (close < 0) return { error: "quote" };
    const name = src.slice(i + 2, close);
    if (NAME.test(name)) return { len: close - i + 1, expands: true, variable: true };
    if (/^[0-9?#$!]$/.test(name)) return { len: close - i + 1, expands: true, variable: false };
    return { error: "expansion" };
  }
  if (!inQuotes && (n === "'" || n === '"')) return { error: "expansion" };
  if (n !== undefined && /[A-Za-z_]/.test(n)) {
    let j = i + 1;
    while (j < src.length && /[A-Za-z0-9_]/.test(src[j])) j++;
    return { len: j - i, expands: true, variable: true };
  }
  if (n !== undefined && /[0-9?#$!@*-]/.test(n)) return { len: 2, expands: true, variable: false };
  return { len: 1, expands: false, variable: false };
}

type RedirectResult = { len: number; redirect: Redirect } | { error: RuleId };

/** Reads the redirection operator at `i`; `fd` is a descriptor number written before it. */
function redirection(src: string, i: number, fd: string): RedirectResult {
  const at = (s: string) => src.startsWith(s, i);
  const file = (op: string, write: boolean) => ({
    len: op.length,
    redirect: { op: fd + op, write },
  });
  if (at("&>>")) return file("&>>", true);
  if (at("&>")) return file("&>", true);
  if (at("<<")) return { error: "heredoc" };
  if (at("<(") || at(">(")) return { error: "process_substitution" };
  if (at("<>")) return file("<>", true);
  if (at(">>")) return file(">>", true);
  if (at(">|")) return file(">|", true);
  if (at("<&") || at(">&")) {
    const m = /^(\d+|-)(?=$|[ \t;&|<>])/.exec(src.slice(i + 2));
    if (m) {
      return {
        len: 2 + m[0].length,
        redirect: { op: fd + src.slice(i, i + 2) + m[0], write: false },
      };
    }
    if (fd || src[i] === "<" || /^[0-9-]/.test(src.slice(i + 2))) return { error: "syntax" };
    return file(">&", true);
  }
  return file(src[i], src[i] === ">");
}
