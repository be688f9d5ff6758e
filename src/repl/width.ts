// deno-lint-ignore-file no-control-regex
/**
 * Terminal cell widths: ANSI sequences take none; a grapheme's width (wide East Asian characters,
 * emoji with their variation selectors, skin tones and joiners) comes from `string-width`, which
 * follows the Unicode tables, so text wraps where the terminal wraps it. The library loads right
 * after the first prompt is painted (`loadWidths`), off the path to it; until then, while only
 * svc's own prompt and status line are on screen, a code point outside ASCII counts one cell (and
 * nothing is segmented: the segmenter's first use loads ICU's data).
 */

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
/** Printable ASCII only: one cell a character, no segmenting needed. */
const ASCII = /^[\x20-\x7e]*$/;

let segmenter: Intl.Segmenter | undefined;
let stringWidth: ((text: string) => number) | undefined;

/** Loads the width tables (`string-width`); widths are exact once it resolves. */
export async function loadWidths(): Promise<void> {
  if (stringWidth) return;
  stringWidth = (await import("string-width")).default;
  known.clear();
}

/** The text without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Widths already measured: string-width takes tens of microseconds on a grapheme outside ASCII. */
const known = new Map<string, number>();
const KNOWN_MAX = 4096;

/** Cells one grapheme (a user-perceived character) takes. */
export function graphemeWidth(grapheme: string): number {
  if (grapheme.length === 1) {
    const c = grapheme.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
  }
  if (!stringWidth) return 1;
  let width = known.get(grapheme);
  if (width === undefined) {
    if (known.size >= KNOWN_MAX) known.clear();
    width = stringWidth(grapheme);
    known.set(grapheme, width);
  }
  return width;
}

/**
 * The graphemes of `text` (escape-free). Only runs outside ASCII go through the segmenter (with
 * the character before them, which a combining mark joins); a run of one code point is one
 * grapheme as it is.
 */
function* graphemes(text: string): Iterable<string> {
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) < 0x80 && !(text.charCodeAt(i + 1) >= 0x80)) {
      yield text[i++];
      continue;
    }
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) >= 0x80) j++;
    const run = text.slice(i, j);
    i = j;
    if (run.length === 1 || (run.length === 2 && run.codePointAt(0)! > 0xffff)) yield run;
    else if (!stringWidth) {
      // Before the tables load (the first paint), code points: Intl.Segmenter's first use loads
      // ICU's data, tens of milliseconds on the path to the first prompt.
      yield* run;
    } else {
      segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
      for (const s of segmenter.segment(run)) yield s.segment;
    }
  }
}

/** Cells a string takes on one line (escape sequences excluded). */
export function textWidth(text: string): number {
  const plain = stripAnsi(text);
  if (ASCII.test(plain)) return plain.length;
  let width = 0;
  for (const g of graphemes(plain)) width += graphemeWidth(g);
  return width;
}

/**
 * Splits one line (no newlines) into rows of at most `columns` cells, keeping escape sequences
 * with the text they style; a grapheme is never split.
 */
export function wrapLine(line: string, columns: number): string[] {
  const cols = Math.max(1, columns);
  const rows: string[] = [];
  let row = "";
  let width = 0;
  const text = (piece: string) => {
    if (ASCII.test(piece)) {
      // One cell a character: whole slices at a time.
      let at = 0;
      while (at < piece.length) {
        if (width >= cols) {
          rows.push(row);
          row = "";
          width = 0;
        }
        const take = Math.min(cols - width, piece.length - at);
        row += piece.slice(at, at + take);
        width += take;
        at += take;
      }
      return;
    }
    for (const g of graphemes(piece)) {
      const w = graphemeWidth(g);
      if (width + w > cols) {
        rows.push(row);
        row = "";
        width = 0;
      }
      row += g;
      width += w;
    }
  };
  let at = 0;
  for (const m of line.matchAll(ANSI)) {
    text(line.slice(at, m.index));
    row += m[0];
    at = m.index + m[0].length;
  }
  text(line.slice(at));
  rows.push(row);
  return rows;
}

/** Cuts a line to at most `columns` cells, marking the cut with an ellipsis. */
export function clip(line: string, columns: number): string {
  if (textWidth(line) <= columns) return line;
  const rows = wrapLine(line, Math.max(1, columns - 1));
  return `${rows[0]}…`;
}
