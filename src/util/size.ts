/** Sizes written for people: `4GiB`, `512M`, `64k`, or a number of bytes. */

/** A size: digits, then an optional unit K, M, G or T (with or without `iB`/`B`). */
export const SIZE_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i;

const UNIT: Record<string, number> = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** Bytes of a size (a number is bytes already); undefined when it is not one. */
export function sizeBytes(value: number | string): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const match = SIZE_PATTERN.exec(value);
  if (!match) return undefined;
  return Math.floor(Number(match[1]) * UNIT[match[2].toLowerCase()]);
}

/** `4 GiB`, `512 MiB`, `100 bytes`: the largest unit that divides evenly. */
export function sizeText(bytes: number): string {
  for (
    const [unit, factor] of [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], [
      "KiB",
      2 ** 10,
    ]] as const
  ) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor} ${unit}`;
  }
  return `${bytes} bytes`;
}
