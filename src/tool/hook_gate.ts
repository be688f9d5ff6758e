/**
 * The hooks of the one invocation path: PreToolUse before the policy's verdict is acted on,
 * PostToolUse after the tool ran (docs/hooks.md). A hook never loosens the policy: its deny
 * denies, its ask turns an allow into an ask, and its allow answers an ask only when it comes from
 * the config's hooks (the user's own config or a trusted worktree's), recorded `by: "approver"`.
 */
import { hookToolInput, hookToolName, matchNames, svcToolArgs } from "./hook_names.ts";
import type { HookDecision, HookRunner, HookSession } from "./hooks.ts";
import { normalizeToolCall } from "./normalize.ts";
import type { ToolRegistry } from "./registry.ts";
import type { Tool } from "./types.ts";

/** What the invocation path needs to run hooks. */
export interface ToolHooks {
  runner: HookRunner;
  session: HookSession;
  /** `permission_mode` as hooks see it ("default" or "plan"). */
  permissionMode: string;
  /** Shows a hook's system message or reported error to the user. */
  notice(message: string): void;
}

/** What PreToolUse said about one call. */
export interface PreToolVerdict {
  decision?: HookDecision;
  reason?: string;
  /** The decision came only from the config's hooks. */
  fromConfig: boolean;
  /** The rewritten arguments, validated against the tool's schema. */
  args?: Record<string, unknown>;
  /** An updatedInput that failed the tool's schema: the call is denied with this. */
  invalid?: string;
  stop?: string;
}

/** Runs the PreToolUse hooks of a call. */
export async function preToolUse(
  tool: Tool,
  call: { id: string; args: Record<string, unknown> },
  env: { hooks: ToolHooks; view: ToolRegistry; offered: readonly string[]; signal: AbortSignal },
): Promise<PreToolVerdict> {
  const { hooks } = env;
  const outcome = await hooks.runner.run("PreToolUse", {
    permission_mode: hooks.permissionMode,
    tool_name: hookToolName(tool),
    tool_input: hookToolInput(tool.name, call.args),
    tool_use_id: call.id,
  }, { session: hooks.session, signal: env.signal, match: matchNames(tool) });
  for (const notice of outcome.notices) hooks.notice(notice);
  const verdict: PreToolVerdict = {
    decision: outcome.decision,
    reason: outcome.reason ?? outcome.context.join("\n"),
    fromConfig: outcome.fromConfig,
    stop: outcome.stop,
  };
  if (outcome.updatedInput && outcome.decision !== "deny") {
    const rewritten = revalidate(tool, outcome.updatedInput, env);
    if ("error" in rewritten) verdict.invalid = rewritten.error;
    else verdict.args = rewritten.args;
  }
  return verdict;
}

/**
 * A hook's or approver's `updatedInput` as svc arguments, checked against the tool's schema as a
 * model's arguments are; an error names what is wrong.
 */
export function revalidate(
  tool: Tool,
  input: Record<string, unknown>,
  env: { view: ToolRegistry; offered: readonly string[] },
): { args: Record<string, unknown> } | { error: string } {
  const normalized = normalizeToolCall(env.view, {
    name: tool.name,
    rawArguments: JSON.stringify(svcToolArgs(tool.name, input)),
    available: env.offered,
  });
  if (!normalized.ok) return { error: `the rewritten input is not valid: ${normalized.error}` };
  return { args: normalized.args };
}

/** Runs the PostToolUse hooks of a call that ran; returns what to add to the tool's result. */
export async function postToolUse(
  tool: Tool,
  call: { id: string; args: Record<string, unknown>; content: string; ok: boolean },
  env: { hooks: ToolHooks; signal: AbortSignal },
): Promise<string> {
  const { hooks } = env;
  if (!hooks.runner.has("PostToolUse")) return "";
  const input = hookToolInput(tool.name, call.args);
  const outcome = await hooks.runner.run("PostToolUse", {
    permission_mode: hooks.permissionMode,
    tool_name: hookToolName(tool),
    tool_input: input,
    tool_use_id: call.id,
    tool_response: {
      content: call.content,
      success: call.ok,
      ...(typeof input.file_path === "string" ? { filePath: input.file_path } : {}),
    },
  }, { session: hooks.session, signal: env.signal, match: matchNames(tool) });
  for (const notice of outcome.notices) hooks.notice(notice);
  const feedback = [...outcome.blocks, ...outcome.context];
  return feedback.length ? `\n\n[PostToolUse hook]\n${feedback.join("\n")}` : "";
}
