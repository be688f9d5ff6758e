/**
 * Approvals over ACP: an ask-gated call becomes `session/request_permission` with allow once,
 * allow always, reject once and reject always. The answer is an approval by `editor` (DESIGN.md's
 * author of an ACP editor's answers); "always" answers are remembered for the rest of the ACP
 * session, "allow always" also by the engine's own approval memory. `approval_timeout` bounds
 * the wait, as for every remote channel: no answer in time denies.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { type Approval, type ApprovalRequest, type Approver, grantKey } from "../tool/approval.ts";
import { toolKind, toolLocations, toolTitle, type UpdateContext } from "./updates.ts";

/** The four choices, by the option id the editor answers with. */
export const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always (this session)", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Reject always (this session)", kind: "reject_always" },
];

/** Asks the editor; resolves the outcome (the SDK's request with its cancellation signal). */
export type AskEditor = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

/** What one ACP session's approver needs. */
export interface EditorApproverOptions {
  sessionId: string;
  ask: AskEditor;
  updates: UpdateContext;
  /** `approval_timeout` in seconds. */
  timeoutS: number;
}

/**
 * The approver of one ACP session. Its "always" answers live as long as it does: the ACP session
 * keeps one approver for all its engines (a mode or model switch builds a new engine).
 */
export function editorApprover(options: EditorApproverOptions): Approver {
  const allowed = new Set<string>();
  const rejected = new Set<string>();
  return async (request, signal) => {
    const key = grantKey(request);
    if (rejected.has(key)) {
      return { answer: "deny", by: "editor", message: "Rejected always in this session." };
    }
    if (allowed.has(key)) return { answer: "always", by: "editor" };
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutS * 1000);
    let response: acp.RequestPermissionResponse;
    try {
      response = await options.ask(
        question(request, options),
        AbortSignal.any([signal, timeout.signal]),
      );
    } catch (err) {
      if (timeout.signal.aborted && !signal.aborted) return timedOut(options.timeoutS);
      if (signal.aborted) return { answer: "deny", by: "policy" };
      return { answer: "deny", by: "policy", message: `Denied: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
    if (timeout.signal.aborted && !signal.aborted) return timedOut(options.timeoutS);
    const outcome = response.outcome;
    if (outcome.outcome !== "selected") return { answer: "deny", by: "editor" };
    switch (outcome.optionId) {
      case "allow_once":
        return { answer: "once", by: "editor" };
      case "allow_always":
        allowed.add(key);
        return { answer: "always", by: "editor" };
      case "reject_always":
        rejected.add(key);
        return { answer: "deny", by: "editor" };
      default:
        return { answer: "deny", by: "editor" };
    }
  };
}

/** The `session/request_permission` of one ask-gated call. */
function question(
  request: ApprovalRequest,
  options: EditorApproverOptions,
): acp.RequestPermissionRequest {
  return {
    sessionId: options.sessionId,
    toolCall: {
      toolCallId: request.id ?? `ask_${crypto.randomUUID()}`,
      title: toolTitle(request.tool, request.args),
      kind: toolKind(request.tool, options.updates),
      status: "pending",
      locations: toolLocations(request.args, options.updates.worktree),
      rawInput: request.args,
    },
    options: PERMISSION_OPTIONS,
  };
}

function timedOut(seconds: number): Approval {
  return {
    answer: "deny",
    by: "editor",
    message: `Denied: no answer from the editor within approval_timeout (${seconds} s)`,
  };
}
