import type { ServiceToolInfo, ServiceToolResult, ServiceTools } from "../plugin/api.ts";
import {
  judgeToolCall,
  offeredTools as offeredByPolicy,
  type PolicyScope,
} from "../engine/judge.ts";
import { CANCELLED } from "../engine/tool_call.ts";
import type { PermissionRecord } from "../session/types.ts";
import { type NormalizedCall, normalizeToolCall } from "../tool/normalize.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { truncateAtLine } from "../tool/text.ts";
import type { Tool, ToolContext, ToolOutput } from "../tool/types.ts";

/** The engine parts tools are served from: config, worktree, mode and the registry. */
export interface ToolScope extends PolicyScope {
  registry: ToolRegistry;
}

/** How served calls are serialized and audited. */
export interface ExposeOptions {
  /** Runs a call under the server's lock (shared with /chat turns); default runs it directly. */
  serialize?: <T>(fn: () => Promise<T>, signal: AbortSignal) => Promise<T>;
  /** Receives the audit record of every call, refusals included. */
  audit?: (record: PermissionRecord) => Promise<void>;
  /** Aborted when the server shuts down: running tools are cancelled like a turn. */
  shutdown?: AbortSignal;
}

/** The session name tools see for served calls (web results are kept per session name). */
export const SERVED_SESSION = "mcp";

/**
 * The policy-filtered tools of an engine, served to external clients. Each call goes through the
 * same normalization and policy verdict as the agent loop: deny is refused, ask runs only when
 * `mcp_server.allow_ask` is true (the client confirms), allow runs. No session is written.
 */
export function exposedTools(scope: ToolScope, options: ExposeOptions = {}): ServiceTools {
  return {
    list: (): ServiceToolInfo[] =>
      offeredTools(scope).map((tool) => ({
        name: tool.name,
        category: tool.category,
        description: tool.description,
        inputSchema: scope.registry.schemaOf(tool).function.parameters as Record<string, unknown>,
      })),
    async call(name, args, requestSignal): Promise<ServiceToolResult> {
      const signal = options.shutdown
        ? AbortSignal.any([requestSignal, options.shutdown])
        : requestSignal;
      const offered = offeredTools(scope).map((t) => t.name);
      const call = normalizeToolCall(scope.registry, name, JSON.stringify(args ?? {}), offered);
      const record: PermissionRecord = {
        at: new Date().toISOString(),
        call_id: `mcp_${crypto.randomUUID().slice(0, 8)}`,
        tool: call.tool?.name ?? name,
        category: call.tool?.category ?? "unknown",
        action: "deny",
        outcome: "denied",
        by: "policy",
        reason: "",
      };
      const result = await judgeAndRun(scope, options, call, record, signal);
      await options.audit?.(record);
      return result;
    },
  };
}

/** The tools the engine would offer the model: denied ones removed, none when tool_calling is off. */
export function offeredTools(scope: ToolScope): Tool[] {
  return offeredByPolicy(scope.registry, scope);
}

async function judgeAndRun(
  scope: ToolScope,
  options: ExposeOptions,
  call: NormalizedCall,
  record: PermissionRecord,
  signal: AbortSignal,
): Promise<ServiceToolResult> {
  if (!call.ok) {
    record.reason = call.tool ? "invalid arguments" : "unknown tool";
    return { content: call.error, ok: false };
  }
  const { tool, args } = call;
  const verdict = judgeToolCall(tool, args, scope);
  record.action = verdict.action;
  record.reason = verdict.reason;
  if (verdict.action === "deny") {
    return { content: `Error: ${tool.name} is not permitted (${verdict.reason})`, ok: false };
  }
  if (verdict.action === "ask" && !scope.config["mcp_server.allow_ask"]) {
    return {
      content:
        `Error: ${tool.name} needs confirmation (${verdict.reason}) and mcp_server.allow_ask is false`,
      ok: false,
    };
  }
  record.outcome = verdict.action === "ask" ? "approved" : "allowed";
  record.by = verdict.action === "ask" ? "client" : "policy";
  const serialize = options.serialize ?? ((fn) => fn());
  const output = await serialize(() => runTool(scope, tool, args, signal), signal);
  if (signal.aborted) record.outcome = "cancelled";
  return {
    content: truncateAtLine(output.content, scope.config.tool_max_result_chars),
    ok: output.ok !== false,
  };
}

/** Runs a tool; never throws (a failure becomes an error result). */
async function runTool(
  scope: ToolScope,
  tool: Tool,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (signal.aborted) return { content: CANCELLED, ok: false };
  const ctx: ToolContext = {
    worktree: scope.worktree,
    signal,
    config: scope.config,
    session: SERVED_SESSION,
    headless: true,
    ask: () => Promise.resolve(null),
    status: () => {},
    trusted: scope.trusted === true,
  };
  try {
    const out = await tool.run(args, ctx);
    return typeof out === "string" ? { content: out } : out;
  } catch (err) {
    if (signal.aborted) return { content: CANCELLED, ok: false };
    return { content: `Error: tool failed: ${(err as Error).message}`, ok: false };
  }
}
