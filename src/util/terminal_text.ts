/**
 * Untrusted text (model answers and thinking, tool results, file content, MCP output, error
 * messages that quote them) made safe to print on a terminal. A terminal obeys control sequences
 * wherever they come from: `ESC]52;c;...BEL` writes the clipboard, `ESC[2J` clears the screen,
 * `ESC]0;...` sets the window title, a bare CR overwrites the line. svc therefore shows every
 * control character of such text as a visible escape before adding its own styling.
 *
 * The convention: C0 controls (U+0000-U+001F) except line feed and tab, DEL (U+007F) and the C1
 * controls (U+0080-U+009F, which some terminals read as ESC sequences: U+009B is CSI) are written
 * as `\xHH` with two lowercase hex digits, so ESC shows as `\x1b` and BEL as `\x07`. A CR directly
 * before a line feed is dropped (a CRLF line ending shows as a line end).
 */

// deno-lint-ignore no-control-regex
const CONTROLS = /(\r(?=\n))|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` with its control characters (but line feed and tab) written as visible `\xHH` escapes. */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, (c, crlf) => crlf ? "" : hex(c));
}

// deno-lint-ignore no-control-regex
const SGR_OR_CONTROLS = /(\x1b\[[0-9;]*m)|(\r(?=\n))|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Like visibleControls, but keeps SGR sequences (`ESC[...m`: colors, bold, dim), the only escapes
 * svc's own styling writes. For text already styled by svc that may carry untrusted parts; an SGR
 * sequence can change colors but not write the clipboard, move the cursor, clear or retitle.
 */
export function visibleControlsKeepingStyle(text: string): string {
  return text.replace(SGR_OR_CONTROLS, (c, sgr, crlf) => sgr ? c : crlf ? "" : hex(c));
}

/** One control character as `\xHH`. */
function hex(c: string): string {
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
}
