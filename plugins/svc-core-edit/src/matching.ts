/** Locating the `old` text of file_edit, and explaining a miss to the model. */

/** Start indexes of the non-overlapping occurrences of `needle` in `text`. */
export function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
    found.push(i);
  }
  return found;
}

/** A hint for a missed `old`: where its first line appears when only whitespace differs. */
export function notFoundHint(text: string, old: string): string {
  const first = old.split("\n").map((line) => line.trim()).find((line) => line !== "");
  if (first) {
    const lines = text.split("\n");
    const hits: number[] = [];
    for (let i = 0; i < lines.length && hits.length < 3; i++) {
      if (lines[i].trim() === first) hits.push(i + 1);
    }
    if (hits.length > 0) {
      return `its first line appears at line ${
        hits.join(", ")
      }: check indentation and the lines after it`;
    }
  }
  return "read the file again with file_read and copy old exactly";
}
