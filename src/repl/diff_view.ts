/**
 * A tool's diff on screen: the unified diff a tool reports in its status (file_edit's preview,
 * the text `svc run --verbose` prints as it is) shown under the finished tool line, coloured when
 * the terminal has colour (added green, removed red, hunk headers cyan) and capped in height.
 */
import { visibleControls } from "../util/terminal_text.ts";
import type { Style } from "./style.ts";

/** Most diff lines shown under a tool line; the rest is counted in a "N more lines" marker. */
export const DIFF_ROWS = 12;

/** Whether a tool status is a unified diff (it starts with the `--- <path>` header). */
export function isDiff(status: string | undefined): status is string {
  return status !== undefined && /^--- .*\n\+\+\+ /.test(status);
}

/**
 * The diff's hunks (the lines after its `---` and `+++` headers), styled and capped at `rows`; the status is
 * untrusted (file content), so its control characters are made visible first.
 */
export function diffLines(status: string, style: Style, rows = DIFF_ROWS): string[] {
  const body = status.split("\n").slice(2).map((line) => visibleControls(line));
  // The tool's own cap ("[... 12 more diff lines]") joins the count of lines not shown here.
  const cut = /^\[\.\.\. (\d+) more diff lines\]$/.exec(body.at(-1) ?? "");
  if (cut) body.pop();
  const shown = body.length > rows ? body.slice(0, rows - 1) : body;
  const out = shown.map((line) => `  ${paint(line, style)}`);
  const more = body.length - shown.length + (cut ? Number(cut[1]) : 0);
  if (more > 0) {
    out.push(style.dim(`  … ${more} more line${more === 1 ? "" : "s"}`));
  }
  return out;
}

/** A whole unified diff, every line styled (headers bold), control characters made visible. */
export function diffText(patch: string, style: Style): string {
  return patch.split("\n").map((line, i) => {
    const shown = visibleControls(line);
    return i < 2 ? style.bold(shown) : paint(shown, style);
  }).join("\n");
}

function paint(line: string, style: Style): string {
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  return line;
}
