/**
 * How many words bash's brace expansion makes of a command, without expanding anything. A port of
 * bash's `brace_expand` (braces.c) to the lexer's word masks, where quoted and escaped characters
 * are NUL and so never open, close or separate a brace expression: comma lists add up their
 * alternatives, `{x..y}` and `{x..y..step}` count their terms, a preamble multiplies by its amble
 * and its postamble, `{a}` and `${NAME}` stay literal. The work is bounded; a word that needs more
 * counts as uncountable.
 */

/** Words a command's brace expressions may make before the OS sandbox has to bound them. */
export const MAX_EXPANDED_WORDS = 1_000;
/** Mask characters one count may scan (bash's own scan is quadratic in unmatched braces). */
const MAX_SCAN = 2_000_000;
/** Nesting the count follows before it gives up. */
const MAX_DEPTH = 200;
/** Sequence ends with more digits than this are not counted exactly (bash uses 64-bit ints). */
const MAX_DIGITS = 18;

/** Thrown inside a count that would scan too much or nest too deep. */
class TooComplex extends Error {}

/** Scan work left for the words of one command. */
export class BraceCounter {
  #left = MAX_SCAN;

  /**
   * Words bash makes of one word (`Word.mask`): 1 without a brace expression, `Infinity` when the
   * count is too large or too complex to compute.
   */
  count(mask: string): number {
    if (!mask.includes("{")) return 1;
    try {
      return this.#expand(mask, 0, mask.length, 0);
    } catch (err) {
      if (err instanceof TooComplex) return Infinity;
      throw err;
    }
  }

  /** bash's `brace_expand` of `mask[from, to)`: preamble, amble, postamble. */
  #expand(mask: string, from: number, to: number, depth: number): number {
    if (depth > MAX_DEPTH) throw new TooComplex();
    let i = from;
    for (;;) {
      const open = this.#gobble(mask, { from: i, to, satisfy: "{", start: from });
      if (open < 0) return 1;
      const close = this.#gobble(mask, { from: open + 1, to, satisfy: "}", start: from });
      if (close < 0) {
        i = open + 1;
        continue;
      }
      let tack: number;
      if (!mask.slice(open + 1, close).includes(",")) {
        const seq = sequenceLength(mask.slice(open + 1, close));
        // A sequence bash refuses is literal text; the rest of the word may still expand.
        if (seq === null && close + 1 >= to) return 1;
        tack = seq ?? 1;
      } else tack = this.#amble(mask, open + 1, close, depth);
      const post = close + 1 < to ? this.#expand(mask, close + 1, to, depth + 1) : 1;
      return tack * post;
    }
  }

  /** bash's `expand_amble`: the alternatives between top-level commas, each brace-expanded. */
  #amble(mask: string, from: number, to: number, depth: number): number {
    let total = 0;
    let start = from;
    for (;;) {
      const comma = this.#gobble(mask, { from: start, to, satisfy: ",", start });
      const end = comma < 0 ? to : comma;
      total += this.#expand(mask, start, end, depth + 1);
      if (comma < 0) return total;
      start = comma + 1;
    }
  }

  /**
   * bash's `brace_gobbler`: the index of the next `satisfy` outside inner braces and `${...}`, or
   * -1. A `}` closes only once a top-level comma or `..` (not right before `}`) has been seen; a
   * `{` alone or right before `}` at the start of the text does not open.
   */
  #gobble(
    mask: string,
    { from, to, satisfy, start }: { from: number; to: number; satisfy: string; start: number },
  ): number {
    const at = (k: number) => k < to ? mask[k] : "";
    let level = 0, seps = satisfy === "}" ? 0 : 1;
    for (let i = from; i < to; i++) {
      if (--this.#left < 0) throw new TooComplex();
      const c = mask[i];
      if (c === "$" && at(i + 1) === "{") {
        i++;
        level++;
        continue;
      }
      if (c === satisfy && level === 0 && seps > 0) {
        if (c === "{" && i === start && (at(i + 1) === "" || at(i + 1) === "}")) continue;
        return i;
      }
      if (c === "{") level++;
      else if (c === "}" && level) level--;
      else if (satisfy === "}" && level === 0) {
        if (c === "," || (c === "." && at(i + 1) === "." && at(i + 2) !== "}")) seps++;
      }
    }
    return -1;
  }
}

/**
 * Terms of a sequence body (`1..10`, `a..z`, `10..1..3`) as bash's `expand_seqterm` reads it, or
 * null when bash would leave it literal. Ends too long to count exactly give `Infinity`.
 */
export function sequenceLength(body: string): number | null {
  const dots = body.indexOf("..");
  if (dots < 0) return null;
  const lhs = body.slice(0, dots), rhs = body.slice(dots + 2);
  const int = /^[+-]?\d+/.exec(rhs);
  const letter = /^[A-Za-z]/.test(rhs) && (rhs.length === 1 || rhs[1] === ".");
  if (!int && !letter) return null;
  const rest = int ? rhs.slice(int[0].length) : rhs.slice(1);
  let step = 1n;
  if (rest.startsWith("..") && rest.length > 2) {
    if (!/^[+-]?\d+$/.test(rest.slice(2))) return null;
    step = BigInt(rest.slice(2));
  } else if (rest !== "") return null;
  if (step < 0n) step = -step;
  if (step === 0n) step = 1n;
  let span: bigint;
  if (int) {
    if (!/^[+-]?\d+$/.test(lhs)) return null;
    if (digits(lhs) > MAX_DIGITS || digits(int[0]) > MAX_DIGITS) return Infinity;
    span = BigInt(int[0]) - BigInt(lhs);
  } else {
    if (!/^[A-Za-z]$/.test(lhs)) return null;
    span = BigInt(rhs.charCodeAt(0) - lhs.charCodeAt(0));
  }
  if (span < 0n) span = -span;
  return Number(span / step + 1n);
}

function digits(number: string): number {
  return number.replace(/^[+-]?0*/, "").length;
}
