import type { ChatToolCall } from "../provider/types.ts";
import type { Session } from "../session/session.ts";
import type { PermissionRecord } from "../session/types.ts";
import type { EngineEvent, ToolCallRecord } from "./events.ts";
import type { EngineDeps } from "./context_types.ts";
import type { Action, AskRequest, ToolContext, ToolOutput } from "../tool/types.ts";
import { normalizeToolCall } from "../tool/normalize.ts";
import { truncateAtLine } from "../tool/text.ts";
import { judgeToolCall } from "./judge.ts";

/** The result fed back when an ask-gated call is not approved. */
export const CANCELLED = "[cancelled]";

export interface CallEnv {
  deps: EngineDeps;
  session: Session;
  signal: AbortSignal;
  emit(event: EngineEvent): void;
  /** Canonical names offered to the model this turn. */
  available: readonly string[];
  ask(request: AskRequest): Promise<string | null>;
}

/**
 * Runs one tool call through the single choke point: normalize, decide, approve, execute, cap,
 * persist and audit. Never throws for tool or model errors; they become results.
 */
export async function executeToolCall(
  call: ChatToolCall,
  env: CallEnv,
  /** Set when the call must not run at all (for example past the per-round limit). */
  refusal?: string,
): Promise<{ record: ToolCallRecord; content: string }> {
  const { deps, session } = env;
  const started = performance.now();
  const normalized = normalizeToolCall(
    deps.registry,
    call.function.name,
    call.function.arguments,
    env.available,
  );
  const name = normalized.tool?.name ?? call.function.name;
  const args = normalized.ok ? normalized.args : {};
  env.emit({ type: "tool_start", call, name, args });

  let content: string;
  let ok = false;
  let status: string | undefined;
  let decision: Action | "cancelled" = "deny";
  const audit: PermissionRecord = {
    at: new Date().toISOString(),
    call_id: call.id,
    tool: name,
    category: normalized.tool?.category ?? "unknown",
    action: "deny",
    outcome: "denied",
    by: "policy",
    reason: "",
  };

  if (refusal) {
    content = `Error: not run: ${refusal}`;
    audit.reason = refusal;
  } else if (!normalized.ok) {
    content = normalized.error;
    audit.reason = normalized.tool ? "invalid arguments" : "unknown tool";
  } else {
    const tool = normalized.tool;
    const verdict = judgeToolCall(tool, args, deps);
    audit.action = verdict.action;
    audit.reason = verdict.reason;
    decision = verdict.action;
    let run = verdict.action === "allow";
    if (verdict.action === "allow") audit.outcome = "allowed";
    if (verdict.action === "ask") {
      if (deps.approve && !env.signal.aborted) {
        run = await deps.approve(
          { tool: tool.name, category: tool.category, args, reason: verdict.reason },
          env.signal,
        ).catch(() => false);
        audit.outcome = run ? "approved" : "rejected";
        audit.by = deps.headless ? "flag" : "user";
      } else {
        audit.outcome = "denied";
        audit.by = "headless";
      }
    }
    if (env.signal.aborted) {
      content = CANCELLED;
      decision = "cancelled";
      audit.outcome = "cancelled";
    } else if (verdict.action === "deny") {
      content = `Error: ${tool.name} is not permitted (${verdict.reason})`;
    } else if (!run) {
      content = CANCELLED;
    } else {
      const output = await runTool(tool.run.bind(tool), args, toolContext(env));
      content = output.content;
      ok = output.ok !== false;
      status = output.status;
      if (env.signal.aborted) {
        decision = "cancelled";
        content = content || CANCELLED;
      }
    }
  }
  content = truncateAtLine(
    content,
    deps.config.tool_max_result_chars,
    "the result exceeded tool_max_result_chars; narrow the request",
  );
  env.emit({ type: "tool_end", id: call.id, name, ok, content, status, decision });
  const analysis = deps.config.tool_analysis && !env.signal.aborted && !refusal
    ? await analyze(name, content, env)
    : undefined;
  // The audit entry and the result share one session write.
  await Promise.all([
    session.appendPermission(audit),
    session.appendMessage({
      role: "tool",
      content: persistedContent(name, content, deps),
      timestamp: new Date().toISOString(),
      tool_call_id: call.id,
      name,
      ok,
      ...(analysis ? { analysis } : {}),
    }, { live: content }),
  ]);
  const duration = Math.round(performance.now() - started) / 1000;
  return { record: { id: call.id, name, arguments: args, decision, ok, duration }, content };
}

/** tool_analysis: a one-line, model-written note on what a result means. */
async function analyze(name: string, content: string, env: CallEnv): Promise<string | undefined> {
  const reply = await env.deps.client.chatNonStreaming({
    model: env.deps.model,
    max_tokens: 120,
    reasoning: env.deps.config.reasoning,
    messages: [
      { role: "system", content: "Summarize what this tool result shows in one short line." },
      { role: "user", content: `Tool ${name} returned:\n${content.slice(0, 8000)}` },
    ],
  }, env.signal);
  return reply.error ? undefined : reply.content.split("\n")[0].trim().slice(0, 300) || undefined;
}

async function runTool(
  run: (args: Record<string, unknown>, ctx: ToolContext) => Promise<string | ToolOutput>,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutput> {
  try {
    const out = await run(args, ctx);
    return typeof out === "string" ? { content: out } : out;
  } catch (err) {
    if (ctx.signal.aborted) return { content: CANCELLED, ok: false };
    return { content: `Error: tool failed: ${(err as Error).message}`, ok: false };
  }
}

function toolContext(env: CallEnv): ToolContext {
  return {
    worktree: env.deps.worktree,
    signal: env.signal,
    config: env.deps.config,
    session: env.session.name,
    headless: env.deps.headless,
    ask: env.ask,
    status: (message) => env.emit({ type: "status", message }),
    trusted: env.deps.trusted === true,
  };
}

/** noise_tools and session_tool_max_chars shape only what is stored, never what the model saw. */
function persistedContent(name: string, content: string, deps: EngineDeps): string {
  const noise = deps.config.noise_tools;
  const aliases = deps.registry.resolve(name)?.aliases ?? [];
  if (noise.includes(name) || aliases.some((a) => noise.includes(a))) {
    return `[${name} result excluded from the session log (noise_tools); ${content.length} characters]`;
  }
  return truncateAtLine(content, deps.config.session_tool_max_chars, "stored copy capped");
}
