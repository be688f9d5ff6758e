/**
 * The configured approver of MCP servers' form questions (`elicitation/create`; docs/mcp_client.md,
 * docs/hooks.md): `Elicitation` hooks (matched by server name), then, in a headless engine, the
 * permission-prompt MCP tool (`approver.mcp_tool`, `--permission-prompt-tool`) asked about
 * `mcp__<server>__elicitation`. It comes before the front-end's person, as for tool calls: what it
 * leaves undecided goes on to the person in the REPL, or is declined headless. `approval_timeout`
 * bounds it (a timeout declines), and content it returns passes the form's checks
 * (elicitation_form.ts) or the question is declined with the reason. Every answer it gives is
 * audited in the session's `permissions`, `by: "approver"`.
 */
import type { PermissionRecord } from "../shared/types.ts";
import { askPromptTool, type ConfiguredApproverParts, hookSession } from "./configured_approver.ts";
import { checkContent, type FormSchema } from "./elicitation_form.ts";
import type { ElicitationDecision, ElicitationRequest } from "./types.ts";

/** What the approver of questions is made of (a subset of the tool calls' approver's parts). */
export type ElicitationApproverParts = Pick<
  ConfiguredApproverParts,
  "hooks" | "transcript" | "permissionMode" | "mcpTool" | "resolve" | "context" | "timeoutS"
>;

/** One question of one tool call: where it is audited. */
export interface ElicitationCall {
  /** The calling engine's session name. */
  session: string;
  /** The id of the tool call the server asked during. */
  callId: string;
  signal: AbortSignal;
  audit(record: PermissionRecord): Promise<void> | void;
}

/** Answers a question, or null when undecided. */
export type ElicitationApprover = (
  request: ElicitationRequest,
  call: ElicitationCall,
) => Promise<ElicitationDecision | null>;

const HOOK = "Elicitation hook";

/** The author the call's result names: `the approver (<source>[: <why>])`. */
function by(source: string, why?: string): string {
  return `the approver (${source}${why ? `: ${why}` : ""})`;
}

/** The approver of questions; undefined when no Elicitation hook and no tool is configured. */
export function configuredElicitation(
  parts: ElicitationApproverParts,
): ElicitationApprover | undefined {
  const hooked = parts.hooks?.has("Elicitation") ?? false;
  if (!hooked && !parts.mcpTool) return undefined;
  return async (request, call) => {
    const timeout = AbortSignal.timeout(parts.timeoutS * 1000);
    const signal = AbortSignal.any([call.signal, timeout]);
    const late = `no answer within approval_timeout (${parts.timeoutS} s)`;
    const decision = await Promise.race([
      decide(request, { parts, hooked, call, signal }),
      new Promise<ElicitationDecision>((resolve) =>
        timeout.addEventListener("abort", () => resolve(declined(by(late))), {
          once: true,
        })
      ),
    ]);
    if (decision) await call.audit(auditRecord(request, call, decision));
    return decision;
  };
}

async function decide(
  request: ElicitationRequest,
  { parts, hooked, call, signal }: {
    parts: ElicitationApproverParts;
    hooked: boolean;
    call: ElicitationCall;
    signal: AbortSignal;
  },
): Promise<ElicitationDecision | null> {
  if (hooked) {
    const outcome = await parts.hooks!.run("Elicitation", {
      permission_mode: parts.permissionMode,
      mcp_server_name: request.server,
      message: request.message,
      mode: request.mode,
      requested_schema: request.requested_schema,
    }, { session: hookSession(call.session, parts), signal, match: [request.server] });
    if (outcome.decision === "deny") {
      return declined(by(HOOK, outcome.reason ?? "blocked"));
    }
    if (outcome.elicitation) {
      const { action, content } = outcome.elicitation;
      return answer(request, { action, content: content ?? {}, source: HOOK });
    }
  }
  if (!parts.mcpTool) return null;
  const source = `approver.mcp_tool ${parts.mcpTool}`;
  const reply = await askPromptTool(parts.mcpTool, {
    tool_name: `mcp__${request.server}__elicitation`,
    input: { message: request.message, requested_schema: request.requested_schema },
    tool_use_id: call.callId,
  }, { parts, signal });
  if ("error" in reply) return declined(by(source, reply.error));
  if (reply.decision === "deny") return declined(by(source, reply.reason ?? "denied"));
  return answer(request, { action: "accept", content: reply.updatedInput ?? {}, source });
}

/** An accept whose content fails the form is declined with the reason. */
function answer(
  request: ElicitationRequest,
  { action, content, source }: {
    action: ElicitationDecision["action"];
    content: unknown;
    source: string;
  },
): ElicitationDecision {
  if (action !== "accept") return { action, author: by(source) };
  const checked = checkContent(request.requested_schema as FormSchema, content);
  if (!checked.ok) {
    return declined(by(source, `its answer does not fit the form: ${checked.error}`));
  }
  return { action, content: checked.content, author: by(source) };
}

function declined(author: string): ElicitationDecision {
  return { action: "decline", author };
}

/** The audit entry: the question as `mcp__<server>__elicitation`, as the approver saw it. */
function auditRecord(
  request: ElicitationRequest,
  call: ElicitationCall,
  decision: ElicitationDecision,
): PermissionRecord {
  const fields = Object.keys(decision.content ?? {}).join(", ") || "no fields";
  const what = { accept: `accepted (${fields})`, decline: "declined", cancel: "cancelled" };
  return {
    at: new Date().toISOString(),
    call_id: call.callId,
    tool: `mcp__${request.server}__elicitation`,
    category: "mcp",
    action: "ask",
    outcome: decision.action === "accept"
      ? "approved"
      : decision.action === "decline"
      ? "rejected"
      : "cancelled",
    by: "approver",
    ...(decision.action === "accept" ? { scope: "once" as const } : {}),
    reason:
      `MCP server ${request.server} asked ${JSON.stringify(request.message.slice(0, 200))}: ` +
      `${what[decision.action]} by ${decision.author}`,
  };
}
