/**
 * The one tool-invocation path: normalize, decide, approve, run, cap, audit. The agent loop, the
 * MCP server, the web_search injection and the REPL's `/tool` all call `invokeTool`, so the same
 * call gets the same verdict and the same audit record everywhere.
 */
import type { Action, PermissionRecord } from "../shared/types.ts";
import type { Approval, ApprovalMemory, Approver } from "./approval.ts";
import { judgeToolCall, type PolicyScope, toolSandboxState, whyNotOffered } from "./judge.ts";
import { loadZod, needsZod } from "./arg_schema.ts";
import {
  postToolUse,
  preToolUse,
  type PreToolVerdict,
  revalidate,
  type ToolHooks,
} from "./hook_gate.ts";
import { normalizeToolCall } from "./normalize.ts";
import { refusalNote, REFUSED_BY_USER } from "./refusal.ts";
import type { ToolRegistry } from "./registry.ts";
import { truncateAtLine } from "./text.ts";
import type { Tool, ToolContext, ToolImage, ToolOutput } from "./types.ts";

/** The result fed back when an ask-gated call is not approved or the run was cancelled. */
export const CANCELLED = "[cancelled]";

/** A tool call as it arrives: the model's (or a client's) name and raw JSON arguments. */
export interface ToolCallInput {
  id: string;
  name: string;
  arguments: string;
}

/** Everything one invocation needs from its caller. */
export interface InvokeEnv {
  /** The tools of this turn (or request) and the canonical names offered from them. */
  view: ToolRegistry;
  offered: readonly string[];
  scope: PolicyScope;
  approver: Approver;
  /** The session's remembered `always` answers; absent where nothing is remembered. */
  memory?: ApprovalMemory;
  /** Session name shown to approvers. */
  session: string;
  signal: AbortSignal;
  /** The context of the chosen tool, built with `toolContext` from the caller's parts. */
  /** `callId`: the call's id (what a question asked during it is audited under). */
  context(tool: Tool, call: { outsideApproved: boolean; callId: string }): ToolContext;
  /** Persists the invocation's audit record (and whatever else the caller keeps); awaited. */
  audit(invocation: Invocation): Promise<void>;
  onStart?(name: string, args: Record<string, unknown>): void;
  /** The capped result, before it is audited (front-ends render it). */
  onEnd?(invocation: Invocation): void;
  /** Set when the call must not run at all (for example past the per-round limit). */
  refusal?: string;
  /** Runs the tool under the caller's lock (a server shared with /chat turns). */
  exclusive?<T>(fn: () => Promise<T>): Promise<T>;
  /** The PreToolUse and PostToolUse hooks (docs/hooks.md); absent where none run. */
  hooks?: ToolHooks;
  /** Awaited right before an approved call runs (the turn's checkpoint of shell commands). */
  beforeRun?(tool: Tool, args: Record<string, unknown>): Promise<void>;
}

/** What happened to one call. `content` is capped at tool_max_result_chars. */
export interface Invocation {
  id: string;
  /** Canonical name when the tool resolved, else the name as called. */
  name: string;
  args: Record<string, unknown>;
  tool?: Tool;
  decision: Action | "cancelled";
  ok: boolean;
  content: string;
  /** One-line status for the front-end; not sent to the model. */
  status?: string;
  /** Images the tool returned (served MCP calls pass them on); not sent to the model. */
  images?: ToolImage[];
  /** Why an ask-gated call was refused and how to allow it (refusal.ts); not sent to the model. */
  refusal?: string;
  audit: PermissionRecord;
  /** Seconds. */
  duration: number;
}

/** Runs one tool call through the single path. Never throws for tool or model errors. */
export async function invokeTool(call: ToolCallInput, env: InvokeEnv): Promise<Invocation> {
  const started = performance.now();
  const target = env.view.resolve(call.name);
  if (target && needsZod(target)) await loadZod();
  const normalized = normalizeToolCall(env.view, {
    name: call.name,
    rawArguments: call.arguments,
    available: env.offered,
  });
  const inv: Invocation = {
    id: call.id,
    name: normalized.tool?.name ?? call.name,
    args: normalized.ok ? normalized.args : {},
    tool: normalized.tool,
    decision: "deny",
    ok: false,
    content: "",
    audit: {
      at: new Date().toISOString(),
      call_id: call.id,
      tool: normalized.tool?.name ?? call.name,
      category: normalized.tool?.category ?? "unknown",
      action: "deny",
      outcome: "denied",
      by: "policy",
      reason: "",
    },
    duration: 0,
  };
  env.onStart?.(inv.name, inv.args);
  if (env.refusal) {
    inv.content = `Error: not run: ${env.refusal}`;
    inv.audit.reason = env.refusal;
  } else if (!normalized.ok) {
    inv.content = normalized.error;
    inv.audit.reason = normalized.tool ? "invalid arguments" : "unknown tool";
    // A registered tool the policy does not offer: the model hears "unknown", the audit says why.
    const hidden = normalized.tool ? undefined : env.view.resolve(call.name);
    if (hidden) {
      inv.name = inv.audit.tool = hidden.name;
      inv.audit.category = hidden.category;
      inv.audit.reason = whyNotOffered(hidden, env.scope);
    }
  } else {
    await decideAndRun(normalized.tool, inv, env);
  }
  inv.content = truncateAtLine(
    inv.content,
    env.scope.config.tool_max_result_chars,
    "the result exceeded tool_max_result_chars; narrow the request",
  );
  inv.duration = Math.round(performance.now() - started) / 1000;
  env.onEnd?.(inv);
  await env.audit(inv);
  return inv;
}

/** Hooks, policy verdict, approval and execution of a normalized call; fills `inv`. */
async function decideAndRun(tool: Tool, inv: Invocation, env: InvokeEnv): Promise<void> {
  const hooks = env.hooks;
  const pre = hooks ? await preToolUse(tool, inv, { ...env, hooks }) : undefined;
  if (pre?.args) inv.args = pre.args;
  const verdict = await judge(tool, inv, env);
  if (verdict.action === "deny") {
    inv.content = `Error: ${tool.name} is not permitted (${verdict.reason})`;
    return;
  }
  if (pre && hookRefuses(pre, inv)) return;
  let reason = verdict.reason;
  if (pre?.decision === "ask" && verdict.action === "allow") {
    reason = `a PreToolUse hook asks${pre.reason ? `: ${pre.reason}` : ""}`;
    inv.decision = inv.audit.action = "ask";
    inv.audit.reason = reason;
  }
  if (inv.decision === "ask") {
    const approval = pre?.decision === "allow" && pre.fromConfig
      ? hookApproval(inv, pre.reason)
      : await approve(tool, inv, reason, env);
    if (approval.answer === "deny") {
      inv.content = approval.message ?? (approval.by === "user" ? REFUSED_BY_USER : CANCELLED);
      inv.refusal = refusalNote(tool, { reason, approval });
      inv.audit.outcome = approval.by === "policy" ? "denied" : "rejected";
      inv.audit.by = approval.by;
      if (approval.message && approval.by === "approver") {
        inv.audit.reason += `; approver: ${approval.message}`;
      }
      return markCancelled(inv, env.signal);
    }
    if (approval.updatedArgs && !await takeRewrite(tool, inv, approval.updatedArgs, env)) return;
    inv.audit.outcome = "approved";
    inv.audit.by = approval.by;
    inv.audit.scope = approval.answer;
  } else inv.audit.outcome = "allowed";
  if (env.signal.aborted) return markCancelled(inv, env.signal);
  await execute(tool, inv, env, verdict.outsideWorktree);
  if (hooks && !env.signal.aborted) inv.content += await postToolUse(tool, inv, { ...env, hooks });
}

/** The policy's verdict on `inv.args`, recorded in `inv`. */
async function judge(tool: Tool, inv: Invocation, env: InvokeEnv) {
  const sandbox = await toolSandboxState(tool, env.scope.config);
  const verdict = judgeToolCall(tool, { args: inv.args, scope: env.scope, sandbox });
  inv.decision = verdict.action;
  inv.audit.action = verdict.action;
  inv.audit.reason = verdict.reason;
  return verdict;
}

/** A PreToolUse deny (or an invalid rewrite, or `continue: false`) ends the call; true then. */
function hookRefuses(pre: PreToolVerdict, inv: Invocation): boolean {
  const why = pre.invalid ??
    (pre.decision === "deny" ? pre.reason || "denied by a PreToolUse hook" : pre.stop);
  if (why === undefined) return false;
  inv.decision = "deny";
  inv.content = `Error: blocked by a PreToolUse hook: ${why}`;
  inv.audit.outcome = "rejected";
  inv.audit.by = "approver";
  inv.audit.reason += `; PreToolUse hook: ${why}`;
  return true;
}

/** An ask answered by an allow of the config's PreToolUse hooks. */
function hookApproval(inv: Invocation, reason: string | undefined): Approval {
  inv.audit.reason += `; allowed by a PreToolUse hook${reason ? `: ${reason}` : ""}`;
  return { answer: "once", by: "approver" };
}

/**
 * An approver's rewritten arguments: validated, then judged again (a deny wins); false when the
 * call must not run.
 */
async function takeRewrite(
  tool: Tool,
  inv: Invocation,
  updated: Record<string, unknown>,
  env: InvokeEnv,
): Promise<boolean> {
  const rewritten = revalidate(tool, updated, env);
  if (!("error" in rewritten)) {
    inv.args = rewritten.args;
    const again = await judge(tool, inv, env);
    if (again.action !== "deny") return true;
    inv.content = `Error: ${tool.name} is not permitted (${again.reason})`;
    return false;
  }
  inv.decision = "deny";
  inv.content = `Error: ${rewritten.error}`;
  inv.audit.outcome = "rejected";
  inv.audit.by = "approver";
  inv.audit.reason += `; approver: ${rewritten.error}`;
  return false;
}

/** Runs the tool (under the caller's lock when it has one) and records its output. */
async function execute(
  tool: Tool,
  inv: Invocation,
  env: InvokeEnv,
  outsideApproved: boolean,
): Promise<void> {
  const context = env.context(tool, { outsideApproved, callId: inv.id });
  const run = async () => {
    await env.beforeRun?.(tool, inv.args);
    return await runTool(tool, inv.args, context);
  };
  const output = env.exclusive
    ? await env.exclusive(run).catch((err): ToolOutput => ({
      content: env.signal.aborted ? CANCELLED : `Error: not run: ${(err as Error).message}`,
      ok: false,
    }))
    : await run();
  inv.content = output.content;
  inv.ok = output.ok !== false;
  inv.status = output.status;
  if (output.images) inv.images = output.images;
  // A tool cancelled mid-run keeps what it said (partial output is still output).
  if (env.signal.aborted) markCancelled(inv, env.signal, inv.content);
}

/** The session's remembered `always`, else the approver's answer (remembered when `always`). */
async function approve(
  tool: Tool,
  inv: Invocation,
  reason: string,
  env: InvokeEnv,
): Promise<Approval> {
  const request = { tool: tool.name, category: tool.category, args: inv.args, reason };
  const remembered = env.memory?.granted(request);
  if (remembered) {
    inv.audit.remembered = true;
    return { answer: "always", by: remembered };
  }
  if (env.signal.aborted) return { answer: "deny", by: "policy" };
  const approval = await env.approver({ ...request, session: env.session, id: inv.id }, env.signal)
    .catch((): Approval => ({ answer: "deny", by: "policy" }));
  if (approval.answer === "always") env.memory?.remember(request, approval.by);
  return approval;
}

/** After an abort: decision and outcome `cancelled`, content `kept` or `[cancelled]`. */
function markCancelled(inv: Invocation, signal: AbortSignal, kept = ""): void {
  if (!signal.aborted) return;
  inv.decision = "cancelled";
  inv.audit.outcome = "cancelled";
  delete inv.refusal;
  inv.content = kept || CANCELLED;
}

/** Runs a tool; a throw becomes an error result (or `[cancelled]` after an abort). */
async function runTool(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutput> {
  try {
    const out = await tool.run(args, ctx);
    return typeof out === "string" ? { content: out } : out;
  } catch (err) {
    if (ctx.signal.aborted) return { content: CANCELLED, ok: false };
    return { content: `Error: tool failed: ${(err as Error).message}`, ok: false };
  }
}
