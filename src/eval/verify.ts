/**
 * The declarative verifier: checks a trial's calls, answer and end-state files against a
 * fixture's `verify` block and says, in words, every check that failed.
 */
import { resolve } from "../util/posix_path.ts";
import type { ArgCheck, Fixture, Matcher } from "./fixture.ts";
import type { CallObservation } from "./observe.ts";

/** What the verifier looks at. */
export interface TrialEvidence {
  calls: readonly CallObservation[];
  /** The final answer (the turn's content). */
  answer: string;
  /** Content of each `verify.files` path when the turn ended; null when it did not exist. */
  files: Readonly<Record<string, string | null>>;
  /** The trial worktree, against which `{"path": ...}` matchers are resolved. */
  worktree: string;
}

/** The verdict: failed checks (empty when it passed) and whether every `args` check matched. */
export interface Verdict {
  failures: string[];
  /** null when the fixture has no `args` checks. */
  args_match: boolean | null;
}

/**
 * Runs every check of `fixture.verify`. Tool names in the fixture are compared after
 * `canonical` (aliases such as `read_file` become `file_read`).
 */
export function verifyTrial(
  fixture: Fixture,
  evidence: TrialEvidence,
  canonical: (name: string) => string = (name) => name,
): Verdict {
  const v = fixture.verify;
  const failures: string[] = [];
  const trace = evidence.calls.map((c) => c.name);
  const shown = (names: readonly string[]) => `[${names.join(", ")}]`;
  if (v.exact) {
    const expected = (fixture.expected ?? []).map(canonical);
    if (trace.length !== expected.length || trace.some((name, i) => name !== expected[i])) {
      failures.push(`the tool trace was ${shown(trace)}, expected exactly ${shown(expected)}`);
    }
  }
  for (const name of (v.must_include ?? []).map(canonical)) {
    if (!trace.includes(name)) failures.push(`${name} was never called`);
  }
  for (const name of (v.avoid ?? []).map(canonical)) {
    const times = trace.filter((t) => t === name).length;
    if (times) failures.push(`${name} was called ${count(times, "time")}; the fixture avoids it`);
  }
  if (v.max_calls !== undefined && trace.length > v.max_calls) {
    failures.push(`${count(trace.length, "tool call")}, at most ${v.max_calls} allowed`);
  }
  if (v.min_calls !== undefined && trace.length < v.min_calls) {
    failures.push(`${count(trace.length, "tool call")}, at least ${v.min_calls} needed`);
  }
  let argsMatch: boolean | null = null;
  if (v.args) {
    argsMatch = true;
    for (const check of v.args) {
      if (matchesSome(check, evidence, canonical)) continue;
      argsMatch = false;
      failures.push(`no ${canonical(check.tool)} call had arguments matching ${describe(check)}`);
    }
  }
  if (v.answer) {
    const answer = evidence.answer.toLowerCase();
    for (const text of v.answer.contains ?? []) {
      if (!answer.includes(text.toLowerCase())) {
        failures.push(`the answer does not contain ${JSON.stringify(text)}`);
      }
    }
    if (v.answer.regex !== undefined && !new RegExp(v.answer.regex, "i").test(evidence.answer)) {
      failures.push(`the answer does not match /${v.answer.regex}/i`);
    }
    for (const text of v.answer.absent ?? []) {
      if (answer.includes(text.toLowerCase())) {
        failures.push(`the answer contains ${JSON.stringify(text)}, which it must not`);
      }
    }
  }
  for (const [path, check] of Object.entries(v.files ?? {})) {
    const content = evidence.files[path] ?? null;
    if (check.exists === false && content !== null) failures.push(`${path} exists; it must not`);
    if (check.exists === false) continue;
    if (content === null) {
      if (check.exists || check.equals !== undefined || check.contains) {
        failures.push(`${path} does not exist`);
      }
      continue;
    }
    if (check.equals !== undefined && content !== check.equals) {
      failures.push(`${path} is not the expected content (${content.length} characters)`);
    }
    for (const text of check.contains ?? []) {
      if (!content.includes(text)) {
        failures.push(`${path} does not contain ${JSON.stringify(text)}`);
      }
    }
  }
  return { failures, args_match: argsMatch };
}

/** Whether some normalized call of the check's tool matches every key of `match`. */
function matchesSome(
  check: ArgCheck,
  evidence: TrialEvidence,
  canonical: (name: string) => string,
): boolean {
  const tool = canonical(check.tool);
  return evidence.calls.some((call) =>
    call.normalized && call.name === tool &&
    Object.entries(check.match).every(([key, matcher]) =>
      matches(call.args[key], matcher, { worktree: evidence.worktree })
    )
  );
}

/** Whether one argument value satisfies a matcher. */
export function matches(
  value: unknown,
  matcher: Matcher,
  { worktree }: { worktree: string },
): boolean {
  if (typeof matcher !== "object") return value === matcher;
  if ("path" in matcher) {
    return typeof value === "string" && value !== "" &&
      resolve(worktree, value) === resolve(worktree, matcher.path);
  }
  if ("regex" in matcher) {
    return (typeof value === "string" || typeof value === "number") &&
      new RegExp(matcher.regex).test(String(value));
  }
  const { min, max } = matcher as { min?: number; max?: number };
  return typeof value === "number" && (min === undefined || value >= min) &&
    (max === undefined || value <= max);
}

function describe(check: ArgCheck): string {
  return Object.entries(check.match).map(([key, m]) => {
    if (typeof m !== "object") return `${key} = ${JSON.stringify(m)}`;
    if ("path" in m) return `${key} = the file ${m.path}`;
    if ("regex" in m) return `${key} ~ /${m.regex}/`;
    const { min, max } = m as { min?: number; max?: number };
    return `${key} in [${min ?? "-inf"}, ${max ?? "inf"}]`;
  }).join(", ");
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
