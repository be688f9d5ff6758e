/**
 * Colors and glyphs of the REPL. With NO_COLOR (or a non-terminal output) every style is the
 * identity, so the screen holds plain text; `glyph_lines` false swaps the Unicode glyphs for
 * ASCII.
 */

/** How text is styled on this screen. */
export interface Style {
  color: boolean;
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  glyphs: Glyphs;
}

/** The marks the REPL draws with. */
export interface Glyphs {
  prompt: string;
  ok: string;
  fail: string;
  tool: string;
  rule: string;
  spinner: readonly string[];
}

const UNICODE: Glyphs = {
  prompt: "›",
  ok: "✓",
  fail: "✗",
  tool: "•",
  rule: "─",
  spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"],
};

const ASCII: Glyphs = {
  prompt: ">",
  ok: "+",
  fail: "x",
  tool: "*",
  rule: "-",
  spinner: ["-", "\\", "|", "/"],
};

/** A style; `color` false gives plain text. */
export function makeStyle(color: boolean, glyphLines = true): Style {
  const sgr = (open: number, close: number) => (text: string) =>
    color && text ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    color,
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    italic: sgr(3, 23),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    glyphs: glyphLines ? UNICODE : ASCII,
  };
}

/** Whether the REPL may color: a terminal and no NO_COLOR (any non-empty value). */
export function colorWanted(isTerminal: boolean): boolean {
  return isTerminal && !Deno.env.get("NO_COLOR");
}
