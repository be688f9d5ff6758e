/**
 * The grammars of flag values several commands share: whole numbers, seconds, comma-separated
 * lists, key=value pairs and tool permissions. Each parser throws a UsageError that names the flag.
 */
import type { ToolPermission } from "../config/schema.ts";
import { ACTIONS, CATEGORIES } from "../shared/types.ts";
import { UsageError } from "./usage.ts";

/** A whole number from `min` to `max` (no `max`: unbounded), surrounding spaces allowed. */
export function wholeNumber(
  text: string,
  { flag, min, max }: { flag: string; min: number; max?: number },
): number {
  const value = wholeNumberOrNull(text, min, max);
  if (value === null) {
    const range = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} takes a whole number ${range}`);
  }
  return value;
}

/** `wholeNumber`'s grammar for a caller that words its own message: null when `text` breaks it. */
export function wholeNumberOrNull(text: string, min: number, max?: number): number | null {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || (max !== undefined && value > max)) return null;
  return value;
}

/** A number of seconds above 0 and at most `max`; fractions allowed. */
export function seconds(text: string, { flag, max }: { flag: string; max: number }): number {
  const value = Number(text);
  if (!text.trim() || !Number.isFinite(value) || value <= 0 || value > max) {
    throw new UsageError(`${flag} takes a number of seconds above 0 (at most ${max})`);
  }
  return value;
}

/** An amount of US dollars above 0 (`0.50`, `2`); at most `max` when given. */
export function dollars(text: string, { flag, max }: { flag: string; max?: number }): number {
  const value = Number(text.trim().replace(/^\$/, ""));
  if (!/^\s*\$?\d*\.?\d+\s*$/.test(text) || !(value > 0) || (max !== undefined && value > max)) {
    const most = max === undefined ? "" : ` (at most ${max})`;
    throw new UsageError(`${flag} takes an amount of US dollars above 0, such as 0.50${most}`);
  }
  return value;
}

/** `a, b,c` as `["a", "b", "c"]`: items trimmed, empty items dropped. */
export function commaList(text: string): string[] {
  return text.split(",").map((item) => item.trim()).filter(Boolean);
}

/** `k=v,k2=v2` as entries in order, keys and values trimmed; a part without one `=` is refused. */
export function keyValuePairs(text: string, flag: string): Array<[string, string]> {
  return commaList(text).map((pair) => {
    const parts = pair.split("=").map((part) => part.trim());
    if (parts.length !== 2 || !parts[0]) {
      throw new UsageError(`${flag}: "${pair}" is not a key=value pair`);
    }
    return [parts[0], parts[1]];
  });
}

/**
 * `--tool-permission`: `category=action` pairs separated by commas (`edit=deny,bash=ask`), or a
 * JSON object of the same (`{"edit": "deny", "bash_allow": ["git status"]}`), where `bash_allow`
 * may be given as a list of strings.
 */
export function toolPermission(text: string, flag = "--tool-permission"): ToolPermission {
  let entries: Array<[string, unknown]>;
  if (text.trim().startsWith("{")) {
    try {
      entries = Object.entries(JSON.parse(text));
    } catch (err) {
      throw new UsageError(`${flag}: not valid JSON (${(err as Error).message})`);
    }
  } else {
    entries = keyValuePairs(text, flag);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (key === "bash_allow" && Array.isArray(value)) {
      if (!value.every((item) => typeof item === "string")) {
        throw new UsageError(`${flag}: bash_allow must be a list of strings`);
      }
      out[key] = value;
      continue;
    }
    if (!(CATEGORIES as readonly string[]).includes(key)) {
      throw new UsageError(
        `${flag}: unknown category ${JSON.stringify(key)} (categories: ` +
          `${CATEGORIES.join(", ")}; bash_allow as a JSON list)`,
      );
    }
    if (!(ACTIONS as readonly unknown[]).includes(value)) {
      throw new UsageError(
        `${flag}: ${key} must be one of ${ACTIONS.join(", ")}, not ${JSON.stringify(value)}`,
      );
    }
    out[key] = value;
  }
  return out as ToolPermission;
}
