/**
 * The configured approver (docs/hooks.md, docs/permissions.md): `PermissionRequest` hooks, then a
 * permission-prompt MCP tool (`--permission-prompt-tool`, `approver.mcp_tool`; headless engines
 * only). It sits between a run's flags and the front-end's own channel: `--yes` and `--no` skip
 * it, and an ask it leaves undecided goes on to the person or the default deny. A tool that is
 * missing, slower than `approval_timeout` or answers garbage denies, with the reason.
 */
import { type Approval, type ApprovalRequest, type Approver, isFlagApprover } from "./approval.ts";
import { hookToolInput, hookToolName, matchNames } from "./hook_names.ts";
import { behaviorAnswer } from "./hook_reply.ts";
import type { HookRunner, HookSession } from "./hooks.ts";
import type { Tool, ToolContext } from "./types.ts";

/** What the configured approver is made of. */
export interface ConfiguredApproverParts {
  hooks?: HookRunner;
  /** The session file of a session name (`transcript_path`). */
  transcript?(session: string): string | undefined;
  permissionMode: string;
  /** The permission-prompt tool's name, when one is configured for this engine. */
  mcpTool?: string;
  /** Resolves a tool by svc name, wire name or `mcp__<server>__<tool>`. */
  resolve(name: string): Tool | undefined;
  /** A context for calling the permission-prompt tool. */
  context(signal: AbortSignal): ToolContext;
  /** Seconds (`approval_timeout`). */
  timeoutS: number;
  category(tool: string): string;
}

/**
 * `base` behind the configured approver: a flag approver as it is; else the hooks and the tool
 * first, `base` for what they leave undecided. Without either, `base` itself.
 */
export function withConfiguredApprover(base: Approver, parts: ConfiguredApproverParts): Approver {
  const hooked = parts.hooks?.has("PermissionRequest") ?? false;
  if (isFlagApprover(base) || (!hooked && !parts.mcpTool)) return base;
  return async (request, signal) => {
    const timeout = AbortSignal.timeout(parts.timeoutS * 1000);
    const combined = AbortSignal.any([signal, timeout]);
    const answer = await Promise.race([
      configured(request, combined, parts, hooked),
      new Promise<Approval>((resolve) =>
        timeout.addEventListener(
          "abort",
          () => resolve(denied(`no answer within approval_timeout (${parts.timeoutS} s)`)),
          {
            once: true,
          },
        )
      ),
    ]);
    return answer ?? await base(request, signal);
  };
}

async function configured(
  request: ApprovalRequest,
  signal: AbortSignal,
  parts: ConfiguredApproverParts,
  hooked: boolean,
): Promise<Approval | undefined> {
  const tool = { name: request.tool, category: request.category };
  if (hooked) {
    const outcome = await parts.hooks!.run("PermissionRequest", {
      permission_mode: parts.permissionMode,
      tool_name: hookToolName(tool),
      tool_input: hookToolInput(request.tool, request.args),
      tool_use_id: request.id ?? "",
    }, { session: hookSession(request.session, parts), signal, match: matchNames(tool) });
    if (outcome.decision === "deny") return denied(outcome.reason ?? "denied by a hook");
    if (outcome.decision === "allow") {
      return {
        answer: "once",
        by: "approver",
        ...(outcome.updatedInput ? { updatedArgs: outcome.updatedInput } : {}),
      };
    }
  }
  if (!parts.mcpTool) return undefined;
  return await askTool(parts.mcpTool, request, parts, signal);
}

/** Calls the permission-prompt tool with `{tool_name, input, tool_use_id}` and reads its answer. */
async function askTool(
  name: string,
  request: ApprovalRequest,
  parts: ConfiguredApproverParts,
  signal: AbortSignal,
): Promise<Approval> {
  const answer = await askPromptTool(name, {
    tool_name: hookToolName({ name: request.tool, category: parts.category(request.tool) }),
    input: hookToolInput(request.tool, request.args),
    tool_use_id: request.id ?? "",
  }, { parts, signal });
  if ("error" in answer) return denied(answer.error);
  if (answer.decision === "deny") return denied(answer.reason ?? "denied by the approver");
  return {
    answer: "once",
    by: "approver",
    ...(answer.updatedInput ? { updatedArgs: answer.updatedInput } : {}),
  };
}

/**
 * Calls the permission-prompt tool `name` with `payload` and reads its
 * `{behavior: "allow", updatedInput}` or `{behavior: "deny", message}` answer; a tool that is
 * missing, fails or answers anything else is an error, with the reason.
 */
export async function askPromptTool(
  name: string,
  payload: Record<string, unknown>,
  { parts, signal }: {
    parts: Pick<ConfiguredApproverParts, "resolve" | "context">;
    signal: AbortSignal;
  },
): Promise<ReturnType<typeof behaviorAnswer>> {
  const tool = parts.resolve(name) ??
    (name.startsWith("mcp__") ? parts.resolve(name.slice(5)) : undefined);
  if (!tool) {
    return {
      error: `the permission-prompt tool ${name} is not available (is its MCP server connected?)`,
    };
  }
  let text: string;
  try {
    const out = await tool.run(payload, parts.context(signal));
    if (typeof out !== "string" && out.ok === false) {
      return { error: `the permission-prompt tool ${name} failed: ${out.content.slice(0, 200)}` };
    }
    text = typeof out === "string" ? out : out.content;
  } catch (err) {
    return { error: `the permission-prompt tool ${name} failed: ${(err as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    return { error: `the permission-prompt tool ${name} answered something that is not JSON` };
  }
  const answer = behaviorAnswer(value);
  return "error" in answer
    ? { error: `the permission-prompt tool ${name}: ${answer.error}` }
    : answer;
}

/** The session a hook of `name` hears about. */
export function hookSession(
  name: string,
  parts: Pick<ConfiguredApproverParts, "transcript">,
): HookSession {
  const path = parts.transcript?.(name);
  return path ? { id: name, path } : { id: name };
}

function denied(message: string): Approval {
  return { answer: "deny", by: "approver", message: `Denied by the approver: ${message}` };
}
