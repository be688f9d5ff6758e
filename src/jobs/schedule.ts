/**
 * Schedule math. Cron expressions are checked against SPEC's grammar here (five fields of `*`,
 * `*\/n`, `a`, `a-b`, `a-b/n` and lists of those; day-of-week 0-7 with 0 and 7 Sunday) and then
 * handed to croner with day-of-month AND day-of-week. Times are the machine's local time zone
 * (TZ honoured); croner handles months, leap days and DST. next_run_at is always strictly after
 * the time it is computed at, so missed windows are never replayed.
 */
import { Cron } from "croner";
import type { Schedule } from "./schema.ts";

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day-of-week", min: 0, max: 7 },
] as const;

const ITEM = /^(?:\*(?:\/(\d+))?|(\d+)(?:-(\d+)(?:\/(\d+))?)?)$/;

/**
 * Why `expr` is not a cron expression svc accepts, or null when it is. Nicknames (`@daily`),
 * `L`, `W`, `#`, `?`, month and day names, seconds and years are refused by name.
 */
export function cronProblem(expr: string): string | null {
  const trimmed = expr.trim();
  if (trimmed.startsWith("@")) {
    return `cron nicknames such as ${trimmed.split(/\s/)[0]} are not supported; write the five ` +
      "fields (minute hour day-of-month month day-of-week), e.g. 0 0 * * * for daily";
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    return `a cron expression has 5 fields (minute hour day-of-month month day-of-week), ` +
      `"${trimmed}" has ${trimmed ? fields.length : 0}`;
  }
  for (const [i, field] of fields.entries()) {
    const { name, min, max } = FIELDS[i];
    for (const item of field.split(",")) {
      const match = ITEM.exec(item);
      if (!match) {
        const hint = /[A-Za-z]/.test(item)
          ? "names and the letters L and W are not supported, use numbers"
          : /[#?]/.test(item)
          ? "# and ? are not supported"
          : "use *, */n, a, a-b, a-b/n or a list of those";
        return `${name} field "${field}": "${item}" is not valid (${hint})`;
      }
      const [, starStep, from, to, rangeStep] = match;
      const step = starStep ?? rangeStep;
      if (step !== undefined && Number(step) < 1) {
        return `${name} field "${field}": step must be 1 or more`;
      }
      for (const value of [from, to]) {
        if (value !== undefined && (Number(value) < min || Number(value) > max)) {
          return `${name} field "${field}": ${value} is outside ${min}-${max}`;
        }
      }
      if (to !== undefined && Number(from) > Number(to)) {
        return `${name} field "${field}": the range ${from}-${to} runs backwards`;
      }
    }
  }
  return null;
}

function cron(expr: string): Cron {
  const problem = cronProblem(expr);
  if (problem) throw new Error(problem);
  return new Cron(expr.trim(), { mode: "5-part", domAndDow: true });
}

/** Parses a one-shot time: ISO 8601 with an offset or Z, else local time; null when invalid. */
export function parseAt(text: string): Date | null {
  const iso =
    /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
  const match = iso.exec(text.trim());
  if (!match) return null;
  let normalized = text.trim().replace(" ", "T");
  // A bare date means local midnight (Date would read it as UTC).
  if (!normalized.includes("T")) normalized += "T00:00";
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Why a schedule is not valid, or null. */
export function scheduleProblem(schedule: Schedule): string | null {
  if ("cron" in schedule) return cronProblem(schedule.cron);
  if ("every" in schedule) {
    return Number.isInteger(schedule.every) && schedule.every >= 1
      ? null
      : "an interval is a whole number of seconds, 1 or more";
  }
  return parseAt(schedule.at) ? null : `"${schedule.at}" is not an ISO 8601 date and time`;
}

/**
 * The next time `schedule` fires strictly after `now`, or null when it never will again (a
 * one-shot time that has passed). An interval keeps its grid: from `anchor` (the previous
 * next_run_at) in steps of `every`, so a run that took a while does not shift later runs; without
 * an anchor it starts at `now`.
 */
export function nextRunAfter(schedule: Schedule, now: Date, anchor?: Date | null): Date | null {
  if ("cron" in schedule) return cron(schedule.cron).nextRun(now);
  if ("every" in schedule) {
    const step = schedule.every * 1000;
    const start = anchor && !Number.isNaN(anchor.getTime()) ? anchor.getTime() : now.getTime();
    if (start > now.getTime()) return new Date(start);
    const steps = Math.floor((now.getTime() - start) / step) + 1;
    return new Date(start + steps * step);
  }
  const at = parseAt(schedule.at);
  return at && at.getTime() > now.getTime() ? at : null;
}

/** The schedule in words for lists: `cron 0 9 * * 1-5`, `every 60 s`, `at <time>`, `manual`. */
export function describeSchedule(schedule: Schedule | null): string {
  if (!schedule) return "manual";
  if ("cron" in schedule) return `cron ${schedule.cron}`;
  if ("every" in schedule) return `every ${schedule.every} s`;
  return `at ${schedule.at}`;
}
