// deno-lint-ignore-file no-control-regex
/** Terminal cell widths: ANSI sequences take none, wide East Asian and emoji take two. */

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** The text without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Cells one code point takes. */
export function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (
    (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f)
  ) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Cells a string takes on one line (escape sequences excluded). */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of stripAnsi(text)) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/**
 * Splits one line (no newlines) into rows of at most `columns` cells, keeping escape sequences
 * with the text they style.
 */
export function wrapLine(line: string, columns: number): string[] {
  const cols = Math.max(1, columns);
  const rows: string[] = [];
  let row = "";
  let width = 0;
  let i = 0;
  while (i < line.length) {
    const esc = line[i] === "\x1b" ? matchAt(line, i) : null;
    if (esc) {
      row += esc;
      i += esc.length;
      continue;
    }
    const cp = line.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const w = charWidth(cp);
    if (width + w > cols) {
      rows.push(row);
      row = "";
      width = 0;
    }
    row += ch;
    width += w;
    i += ch.length;
  }
  rows.push(row);
  return rows;
}

function matchAt(text: string, at: number): string | null {
  const re = new RegExp(ANSI.source, "y");
  re.lastIndex = at;
  const m = re.exec(text);
  return m ? m[0] : null;
}

/** Cuts a line to at most `columns` cells, marking the cut with an ellipsis. */
export function clip(line: string, columns: number): string {
  if (textWidth(line) <= columns) return line;
  const rows = wrapLine(line, Math.max(1, columns - 1));
  return `${rows[0]}…`;
}
