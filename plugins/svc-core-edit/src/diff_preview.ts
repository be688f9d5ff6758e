/** A compact unified-diff preview of an edit, for the front-end's status line. */

/** Most diff lines a preview shows. */
const MAX_LINES = 40;

/**
 * Unified diff of `before` -> `after` with one line of context, capped at 40 lines. Falls back
 * to a plain summary when the diff would be too costly to compute (huge rewrites).
 */
export async function diffPreview(
  path: string,
  { before, after }: { before: string; after: string },
): Promise<string> {
  // Loaded on the first edit, not when the plugin loads.
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(path, path, before, after, undefined, undefined, {
    context: 1,
    maxEditLength: 2000,
    timeout: 300,
  });
  if (!patch) return `${path}: changed (diff too large to preview)`;
  const lines = [`--- ${path}`, `+++ ${path}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) lines.push(line.replace(/\r$/, ""));
  }
  if (lines.length <= MAX_LINES) return lines.join("\n");
  const more = lines.length - MAX_LINES;
  return [...lines.slice(0, MAX_LINES), `[... ${more} more diff lines]`].join("\n");
}
