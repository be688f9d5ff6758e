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
}

/** Answers ask-gated calls. Must not throw; a rejection counts as deny by the policy. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<Approval>;

/** The approver of a run with no one to ask: every ask-gated call is denied by the policy. */
export const denyAll: Approver = () => Promise.resolve({ answer: "deny", by: "policy" });

/** An approver that always gives `approval` (for `--yes`, `--no` and MCP clients). */
export function fixedApprover(approval: Approval): Approver {
  return () => Promise.resolve(approval);
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
