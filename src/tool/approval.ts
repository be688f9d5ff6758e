/**
 * Approvals of ask-gated tool calls. An approver answers `once` (this call), `always` (every
 * matching call for the rest of the session) or `deny`, and names who decided; `always` answers
 * are kept in an ApprovalMemory that belongs to one session.
 */
import type { ApprovalAuthor, Category } from "../shared/types.ts";

export type { ApprovalAuthor };

/** How far an approval reaches. */
export type ApprovalAnswer = "once" | "always" | "deny";

/** An approver's answer and who gave it. */
export interface Approval {
  answer: ApprovalAnswer;
  by: ApprovalAuthor;
  /** Shown to the model instead of `[cancelled]` when the answer is deny. */
  message?: string;
  /**
   * A configured approver's rewrite of the arguments (`updatedInput`): validated against the
   * tool's schema and judged by the policy again before the call runs.
   */
  updatedArgs?: Record<string, unknown>;
}

/** A question about one ask-gated tool call. */
export interface ApprovalRequest {
  tool: string;
  category: Category;
  args: Record<string, unknown>;
  /** Why the policy asks (for example "bash category is ask"). */
  reason: string;
  /** The session the call belongs to ("mcp" for served calls). */
  session: string;
  /** The tool call's id (`tool_use_id` for hooks and permission-prompt tools). */
  id?: string;
}

/** Answers ask-gated calls. Must not throw; a rejection counts as deny by the policy. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<Approval>;

/** The approver of a run with no one to ask: every ask-gated call is denied by the policy. */
export const denyAll: Approver = () => Promise.resolve({ answer: "deny", by: "policy" });

const FLAG_APPROVERS = new WeakSet<Approver>();

/**
 * An approver that always gives `approval` (for `--yes`, `--no` and MCP clients). One whose
 * author is `flag` overrides a configured approver (`isFlagApprover`).
 */
export function fixedApprover(approval: Approval): Approver {
  const approver: Approver = () => Promise.resolve(approval);
  if (approval.by === "flag") FLAG_APPROVERS.add(approver);
  return approver;
}

/** Whether `approver` is a run's `--yes` or `--no`, which no configured approver overrides. */
export function isFlagApprover(approver: Approver): boolean {
  return FLAG_APPROVERS.has(approver);
}

/**
 * What an `always` answer covers: the same tool asked for the same reason; for the bash category
 * the exact same command too, so approving `npm test` never approves `rm -rf ~`.
 */
export function grantKey(request: Omit<ApprovalRequest, "session">): string {
  const exact = request.category === "bash" ? JSON.stringify(request.args) : "";
  return `${request.tool}\n${request.reason}\n${exact}`;
}

/** The `always` answers of one session, with who gave each. Never persisted. */
export class ApprovalMemory {
  #grants = new Map<string, ApprovalAuthor>();

  /** Who granted a matching `always`, or undefined. */
  granted(request: Omit<ApprovalRequest, "session">): ApprovalAuthor | undefined {
    return this.#grants.get(grantKey(request));
  }

  remember(request: Omit<ApprovalRequest, "session">, by: ApprovalAuthor): void {
    this.#grants.set(grantKey(request), by);
  }
}
