/**
 * What one hook said, read from its exit code and output in Claude Code's format (docs/hooks.md):
 * exit 0 reads stdout (JSON, or plain text that is context for UserPromptSubmit and SessionStart),
 * exit 2 blocks with stderr as the reason, any other end is a reported, non-blocking error.
 */

/** A permission decision of a hook. */
export type HookDecision = "allow" | "deny" | "ask";

/** One hook's answer, normalized. Unknown output fields are ignored. */
export interface HookReply {
  /** `hookSpecificOutput.permissionDecision` (legacy `decision: approve|block` included). */
  decision?: HookDecision;
  reason?: string;
  /** `hookSpecificOutput.updatedInput` (PreToolUse) or `decision.updatedInput` (PermissionRequest). */
  updatedInput?: Record<string, unknown>;
  /** Exit 2, or `decision: "block"`: the reason shown to the model. */
  block?: string;
  /** `additionalContext`, or plain stdout where that is context. */
  context?: string;
  /** `continue: false`: the turn stops, with `stopReason`. */
  stop?: string;
  /** `systemMessage`: shown to the user as a warning. */
  systemMessage?: string;
  /** A crash, a timeout or unreadable output: reported; a deny when the hook is fail_closed. */
  error?: string;
  /** An Elicitation hook's `hookSpecificOutput.action` and `content`. */
  elicitation?: ElicitationReply;
}

/** An Elicitation hook's answer to an MCP server's question (its content is checked later). */
export interface ElicitationReply {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** How a hook ended, for `readReply`. */
export interface HookEnd {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  timeoutS: number;
}

/** Events whose plain stdout is context for the model. */
const CONTEXT_EVENTS = new Set(["UserPromptSubmit", "SessionStart"]);

/** The reply of a command hook from how it ended. */
export function readReply(event: string, end: HookEnd): HookReply {
  if (end.timedOut) return { error: `timed out after ${end.timeoutS} s; process group killed` };
  if (end.code === 2) return { block: end.stderr.trim() || "blocked by a hook (exit code 2)" };
  if (end.code !== 0) {
    const detail = end.stderr.trim().split("\n").slice(-3).join(" ");
    return { error: `exited with code ${end.code}${detail ? `: ${detail}` : ""}` };
  }
  const text = end.stdout.trim();
  if (!text) return {};
  if (!text.startsWith("{")) {
    return CONTEXT_EVENTS.has(event) ? { context: text } : {
      error: `printed output that is not a JSON object: ${text.slice(0, 120)}`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `printed invalid JSON: ${(err as Error).message}` };
  }
  return replyOf(event, value);
}

/** The reply of a JSON output object (a command's stdout or a plugin hook's return value). */
export function replyOf(event: string, value: unknown): HookReply {
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    return CONTEXT_EVENTS.has(event) ? { context: value } : { error: "answered a plain string" };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return { error: "answered something other than a JSON object" };
  }
  const out = value as Record<string, unknown>;
  const reply: HookReply = {};
  const specific = isObject(out.hookSpecificOutput) ? out.hookSpecificOutput : {};
  if (out.continue === false) reply.stop = text(out.stopReason) ?? "stopped by a hook";
  if (typeof out.systemMessage === "string") reply.systemMessage = out.systemMessage;
  const context = text(specific.additionalContext) ?? text(out.additionalContext);
  if (context) reply.context = context;
  if (out.decision === "block") reply.block = text(out.reason) ?? "blocked by a hook";
  if (out.decision === "approve") reply.decision = "allow";
  const decision = specific.permissionDecision;
  if (decision === "allow" || decision === "deny" || decision === "ask") {
    reply.decision = decision;
    reply.reason = text(specific.permissionDecisionReason) ?? text(out.reason);
  } else if (decision !== undefined) {
    return { error: `permissionDecision ${JSON.stringify(decision)} is not allow, deny or ask` };
  }
  if (isObject(specific.updatedInput)) reply.updatedInput = specific.updatedInput;
  if (event === "PermissionRequest" && specific.decision !== undefined) {
    return permissionReply(specific.decision, reply);
  }
  if (event === "Elicitation" && specific.action !== undefined) {
    const action = specific.action;
    if (action !== "accept" && action !== "decline" && action !== "cancel") {
      return { error: `action ${JSON.stringify(action)} is not accept, decline or cancel` };
    }
    if (specific.content !== undefined && !isObject(specific.content)) {
      return { error: "content is not an object" };
    }
    reply.elicitation = isObject(specific.content) && action === "accept"
      ? { action, content: specific.content }
      : { action };
  }
  return reply;
}

/** `hookSpecificOutput.decision` of a PermissionRequest hook: `{behavior, updatedInput, message}`. */
function permissionReply(decision: unknown, reply: HookReply): HookReply {
  const answer = behaviorAnswer(decision);
  if ("error" in answer) return { error: answer.error };
  return { ...reply, ...answer };
}

/**
 * The `{behavior: "allow", updatedInput}` or `{behavior: "deny", message}` answer that
 * PermissionRequest hooks and permission-prompt tools give, as a reply; anything else is an error.
 */
export function behaviorAnswer(
  value: unknown,
): Pick<HookReply, "decision" | "reason" | "updatedInput"> | { error: string } {
  if (!isObject(value)) return { error: "the answer is not a JSON object" };
  if (value.behavior === "allow") {
    if (value.updatedInput !== undefined && !isObject(value.updatedInput)) {
      return { error: "updatedInput is not an object" };
    }
    return {
      decision: "allow",
      ...(isObject(value.updatedInput) ? { updatedInput: value.updatedInput } : {}),
    };
  }
  if (value.behavior === "deny") {
    return { decision: "deny", reason: text(value.message) ?? "denied by the approver" };
  }
  return { error: `behavior ${JSON.stringify(value.behavior)} is not allow or deny` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value : undefined;
}
