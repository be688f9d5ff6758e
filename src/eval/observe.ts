/**
 * What a trial did, read from structured data only: the TurnResult's tool-call records joined
 * with the session's `permissions` audit (same order, one entry per call) and the assistant
 * messages' raw tool calls. Tool errors are classified from the audit, never from result text.
 */
import type { PermissionRecord } from "../shared/types.ts";
import type { SessionData, ToolCallRecord } from "../runtime/mod.ts";

/** Kinds of tool errors an eval counts apart. */
export const TOOL_ERROR_KINDS = ["unknown_tool", "invalid_arguments", "denied", "failed"] as const;
export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number];

/** Tool error counts by kind. */
export type ToolErrorCounts = Record<ToolErrorKind, number>;

/** Categories whose calls may change what a repeated call returns. */
const MUTATING = new Set(["edit", "bash", "mcp", "delegate"]);

/** One tool call of a trial as the metrics and the verifier see it. */
export interface CallObservation {
  /** Canonical name when the tool resolved, else the name the model used. */
  name: string;
  /** Normalized arguments; empty when the call did not normalize. */
  args: Record<string, unknown>;
  /** The call normalized (known, offered tool and valid arguments): `args` are what ran. */
  normalized: boolean;
  ok: boolean;
  error: ToolErrorKind | null;
  /** The call ran and its tool may change state (edit, bash, mcp, delegate). */
  mutating: boolean;
  /** Identity of the call for redundancy: name and arguments, canonically written. */
  key: string;
}

/** The calls of a trial, in order. */
export function observeCalls(
  records: readonly ToolCallRecord[],
  session: Pick<SessionData, "messages" | "permissions">,
): CallObservation[] {
  const raw = session.messages.flatMap((m) => m.role === "assistant" ? m.tool_calls ?? [] : []);
  return records.map((record, i) => {
    const audit: PermissionRecord | undefined = session.permissions[i]?.call_id === record.id
      ? session.permissions[i]
      : undefined;
    const error = classify(audit, record.ok);
    const normalized = error !== "unknown_tool" && error !== "invalid_arguments" &&
      audit !== undefined;
    const sent = raw[i]?.id === record.id ? raw[i].function.arguments : undefined;
    return {
      name: record.name,
      args: record.arguments,
      normalized,
      ok: record.ok,
      error,
      mutating: audit !== undefined && MUTATING.has(audit.category) &&
        (audit.outcome === "allowed" || audit.outcome === "approved"),
      key: normalized || sent === undefined
        ? `${record.name} ${canonicalJson(record.arguments)}`
        : `${record.name} ${canonicalRaw(sent)}`,
    };
  });
}

/**
 * The kind of error of one call from its audit record: the invocation path writes reason
 * `unknown tool` or `invalid arguments` when a call does not normalize, outcome `denied` or
 * `rejected` when the policy or an approver refused it (a tool the policy does not offer
 * included), and a call that ran and returned an error result failed.
 */
export function classify(audit: PermissionRecord | undefined, ok: boolean): ToolErrorKind | null {
  if (!audit) return ok ? null : "failed";
  if (audit.outcome === "cancelled") return null;
  if (audit.reason === "unknown tool") return "unknown_tool";
  if (audit.reason === "invalid arguments") return "invalid_arguments";
  if (audit.outcome === "denied" || audit.outcome === "rejected") return "denied";
  return ok ? null : "failed";
}

/** Tool error counts of `calls`. */
export function countToolErrors(calls: readonly CallObservation[]): ToolErrorCounts {
  const counts: ToolErrorCounts = { unknown_tool: 0, invalid_arguments: 0, denied: 0, failed: 0 };
  for (const call of calls) if (call.error) counts[call.error]++;
  return counts;
}

/**
 * Calls identical (same tool, same arguments) to an earlier call with no state-changing call
 * in between: work the model had already done.
 */
export function redundantCalls(calls: readonly CallObservation[]): number {
  let seen = new Set<string>();
  let redundant = 0;
  for (const call of calls) {
    if (seen.has(call.key)) redundant++;
    // After a change only the change itself is known: repeating it at once is still redundant.
    if (call.mutating) seen = new Set();
    seen.add(call.key);
  }
  return redundant;
}

/** Precision, recall, F1 and in-order match of a tool-name trace against the expected one. */
export interface TraceScores {
  precision: number;
  recall: number;
  f1: number;
  /** `expected` appears in `trace` in order (other calls may come between). */
  in_order: boolean;
}

/**
 * Scores `trace` against `expected` as multisets (a name expected twice must be called twice to
 * count twice). An empty trace has precision 1 only when nothing was expected.
 */
export function traceScores(trace: readonly string[], expected: readonly string[]): TraceScores {
  const left = new Map<string, number>();
  for (const name of expected) left.set(name, (left.get(name) ?? 0) + 1);
  let matched = 0;
  for (const name of trace) {
    const n = left.get(name) ?? 0;
    if (n > 0) {
      matched++;
      left.set(name, n - 1);
    }
  }
  const precision = trace.length ? matched / trace.length : expected.length ? 0 : 1;
  const recall = expected.length ? matched / expected.length : 1;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  let next = 0;
  for (const name of trace) if (next < expected.length && name === expected[next]) next++;
  return { precision, recall, f1, in_order: next === expected.length };
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Raw argument text canonically when it is JSON, else as sent. */
function canonicalRaw(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}
