/**
 * Live approvals of served turns (`"approvals": "client"` in a /chat body): an ask-gated call
 * parks as a pending approval, announced by an `approval_request` event, until `POST
 * /approvals/{id}` answers it, its turn ends, or `approval_timeout` passes (then it is denied).
 * The answer's author is `client`. A parked approval holds only its own turn.
 */
import {
  type Approval,
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  denyAll,
} from "../tool/approval.ts";

/** One pending approval as `GET /approvals` lists it. */
export interface PendingApproval {
  id: string;
  session: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
  created_at: string;
}

/** What answering an approval did. */
export type AnswerOutcome = "answered" | "unknown" | "already_answered" | "wrong_session";

interface Parked {
  pending: PendingApproval;
  settle(approval: Approval): void;
}

/** Ids of answered approvals remembered, so a second answer is 409 rather than 404. */
const ANSWERED_KEPT = 256;

/** The pending client approvals of one server, and the engine's approver that parks calls. */
export class ClientApprovals {
  #parked = new Map<string, Parked>();
  #answered = new Set<string>();
  #current: Approver | undefined;

  constructor(readonly timeoutS: number) {}

  /** The engine's base approver: the running turn's client channel, else deny (headless). */
  readonly approver: Approver = (request, signal) => (this.#current ?? denyAll)(request, signal);

  /** Runs `fn` (one turn) with its ask-gated calls parked for the client; `emit` announces them. */
  async during<T>(
    emit: (event: { type: string } & Record<string, unknown>) => void,
    fn: () => Promise<T>,
  ): Promise<T> {
    this.#current = (request, signal) => this.#park(request, { emit, signal });
    try {
      return await fn();
    } finally {
      this.#current = undefined;
    }
  }

  /** The pending approvals, oldest first. */
  list(): PendingApproval[] {
    return [...this.#parked.values()].map((p) => p.pending);
  }

  /** Answers approval `id`; `session`, when given, must be the approval's session. */
  answer(
    id: string,
    reply: { answer: ApprovalAnswer; message?: string; session?: string },
  ): AnswerOutcome {
    const parked = this.#parked.get(id);
    if (!parked) return this.#answered.has(id) ? "already_answered" : "unknown";
    if (reply.session !== undefined && reply.session !== parked.pending.session) {
      return "wrong_session";
    }
    const message = reply.answer === "deny" ? reply.message : undefined;
    parked.settle({ answer: reply.answer, by: "client", ...(message ? { message } : {}) });
    return "answered";
  }

  #park(
    request: ApprovalRequest,
    { emit, signal }: {
      emit: (event: { type: string } & Record<string, unknown>) => void;
      signal: AbortSignal;
    },
  ): Promise<Approval> {
    const id = `apr_${crypto.randomUUID().replaceAll("-", "")}`;
    const pending: PendingApproval = {
      id,
      session: request.session,
      tool: request.tool,
      args: request.args,
      reason: request.reason,
      created_at: new Date().toISOString(),
    };
    return new Promise<Approval>((resolve) => {
      const timer = setTimeout(() =>
        settle({
          answer: "deny",
          by: "client",
          message: `Denied: no answer from the client within approval_timeout (${this.timeoutS} s)`,
        }), this.timeoutS * 1000);
      const onAbort = () => settle({ answer: "deny", by: "policy" });
      const settle = (approval: Approval) => {
        if (!this.#parked.delete(id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#answered.add(id);
        if (this.#answered.size > ANSWERED_KEPT) {
          this.#answered.delete(this.#answered.values().next().value!);
        }
        resolve(approval);
      };
      this.#parked.set(id, { pending, settle });
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) return onAbort();
      emit({ type: "approval_request", ...pending });
    });
  }
}
