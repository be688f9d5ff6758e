/**
 * svc's events in the stream-json envelope (Claude Code's `--output-format stream-json`, also
 * followed by Qwen Code and Cursor's CLI): pure functions from engine events and a TurnResult to
 * the objects of the lines. `svc run --output stream-json` writes them one per line; the streamed
 * HTTP API and MCP progress share the same schema (docs/schema/stream-json.v1.json).
 */
import {
  type EngineEvent,
  EVENT_SCHEMA_VERSION,
  type TurnReason,
  type TurnResult,
} from "../engine/events.ts";
import type { Usage } from "../provider/types.ts";
import type { HeadlessInfo } from "./headless.ts";

export { EVENT_SCHEMA_VERSION };

/** One line of the stream, before it is serialized. */
export type StreamJsonLine = { type: string } & Record<string, unknown>;

/** What every line of one run shares. */
export interface StreamJsonContext {
  session_id: string;
  model: string;
  /** `--include-partial-messages`: text and thinking deltas as `stream_event` lines. */
  partial: boolean;
}

/**
 * How ask-gated calls are answered in the run: `--yes`, `--no`, the default (denied), or by the
 * client of a served turn that asked for live approvals (`"approvals": "client"`).
 */
export type StreamApprovals = "yes" | "no" | "default" | "client";

/** The first line: `system` / `init`. */
export function initLine(
  info: HeadlessInfo,
  run: { session_id: string; version: string; approvals: StreamApprovals; warnings: string[] },
): StreamJsonLine {
  return {
    type: "system",
    subtype: "init",
    cwd: info.worktree,
    session_id: run.session_id,
    tools: info.tools,
    mcp_servers: info.mcp_servers.map(({ name, autoconnect }) => ({
      name,
      status: !autoconnect
        ? "disconnected"
        : run.warnings.some((w) => w.includes(`could not connect ${name}:`))
        ? "failed"
        : "connected",
    })),
    model: info.model,
    permissionMode: permissionMode(info.mode, run.approvals),
    apiKeySource: "none",
    svc: {
      schema_version: EVENT_SCHEMA_VERSION,
      version: run.version,
      provider: info.provider,
      mode: info.mode,
      approvals: run.approvals,
    },
  };
}

/**
 * The convention's permission mode: `plan` in plan mode; `bypassPermissions` with `--yes` (the
 * policy's denials still deny); `default` (asks are put to someone) with client approvals;
 * otherwise `dontAsk` (a headless ask is denied unless approved).
 */
function permissionMode(mode: HeadlessInfo["mode"], approvals: StreamApprovals): string {
  if (mode === "plan") return "plan";
  if (approvals === "client") return "default";
  return approvals === "yes" ? "bypassPermissions" : "dontAsk";
}

/**
 * The lines of one engine event: an `assistant` message when a round's message completes, a
 * `user` message per tool result, `stream_event` deltas with `partial`, nothing for what other
 * lines already carry (the session, tool starts, the done result), and every other svc event
 * (status, warnings, errors, approvals, retries, compaction, team stages) as a `system` /
 * `svc_event` line.
 */
export function eventLines(event: EngineEvent, ctx: StreamJsonContext): StreamJsonLine[] {
  const common = { parent_tool_use_id: null, session_id: ctx.session_id };
  switch (event.type) {
    case "token":
    case "thinking": {
      if (!ctx.partial) return [];
      const delta = event.type === "token"
        ? { type: "text_delta", text: event.content }
        : { type: "thinking_delta", thinking: event.content };
      const index = event.type === "token" ? 1 : 0;
      const inner = { type: "content_block_delta", index, delta };
      return [{ type: "stream_event", event: inner, ...common }];
    }
    case "assistant_message":
      return [{ type: "assistant", message: assistantMessage(event, ctx), ...common }];
    case "tool_end": {
      const block = {
        type: "tool_result",
        tool_use_id: event.id,
        content: event.content,
        is_error: !event.ok,
      };
      return [{
        type: "user",
        message: { role: "user", content: [block] },
        ...common,
        svc: { tool_name: event.name, decision: event.decision, status: event.status ?? null },
      }];
    }
    case "tool_start":
    case "session":
    case "done":
      return [];
    default:
      return [svcEventLine(event, ctx)];
  }
}

/** An svc event of its own (or a front-end's, like a team stage) as a `system` line. */
export function svcEventLine(
  event: { type: string } & Record<string, unknown>,
  ctx: Pick<StreamJsonContext, "session_id">,
): StreamJsonLine {
  return { type: "system", subtype: "svc_event", session_id: ctx.session_id, event };
}

type AssistantEvent = Extract<EngineEvent, { type: "assistant_message" }>;

function assistantMessage(event: AssistantEvent, ctx: StreamJsonContext) {
  const content: Record<string, unknown>[] = [];
  if (event.thinking) content.push({ type: "thinking", thinking: event.thinking, signature: "" });
  if (event.content) content.push({ type: "text", text: event.content });
  for (const call of event.tool_calls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call) });
  }
  return {
    id: `msg_${ctx.session_id}_${event.round}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: stopReason(event.finish_reason),
    stop_sequence: null,
    ...(event.usage ? { usage: conventionUsage(event.usage) } : {}),
  };
}

/** A call's arguments as an object; text that is no JSON object is kept under `_raw`. */
function toolInput(call: { arguments: string }): Record<string, unknown> {
  try {
    const value = JSON.parse(call.arguments || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch { /* kept raw below */ }
  return { _raw: call.arguments };
}

/** The convention's stop reasons for chat-completions finish reasons. */
function stopReason(finish: string | null): string | null {
  if (finish === "stop") return "end_turn";
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls") return "tool_use";
  return finish;
}

const count = (value: unknown): number => typeof value === "number" ? value : 0;

/**
 * Usage in the convention's names: `input_tokens` are the prompt tokens not read from the cache,
 * `cache_read_input_tokens` those that were; svc never learns of cache writes (0).
 */
export function conventionUsage(usage: Usage | null): Record<string, number> {
  const cached = count(usage?.cached_tokens);
  return {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - cached),
    output_tokens: count(usage?.completion_tokens),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/** The convention's result subtype of a turn's stop reason. */
const SUBTYPES: Record<TurnReason, string> = {
  answered: "success",
  max_tokens: "success",
  empty: "error_during_execution",
  max_turns: "error_max_turns",
  round_limit: "error_max_turns",
  max_tokens_total: "error_max_tokens_total",
  max_cost: "error_max_budget_usd",
  schema_invalid: "error_max_structured_output_retries",
  stream_error: "error_during_execution",
  session_write: "error_during_execution",
  setup_error: "error_during_execution",
  cancelled: "error_during_execution",
};

/**
 * The last line: `result`, with the whole TurnResult under `svc`. `duration_ms` is the run's
 * (from the front-end) or else the turn's; `duration_api_ms` is not measured (null).
 */
export function resultLine(
  result: TurnResult,
  run: { session_id: string; duration_ms?: number },
): StreamJsonLine {
  const subtype = SUBTYPES[result.reason] ?? "error_during_execution";
  return {
    type: "result",
    subtype,
    is_error: result.status !== "ok" && result.status !== "truncated",
    duration_ms: run.duration_ms ?? Math.round(result.duration * 1000),
    duration_api_ms: null,
    num_turns: result.rounds,
    result: result.content,
    session_id: run.session_id,
    total_cost_usd: result.cost_usd ?? null,
    usage: conventionUsage(result.usage),
    permission_denials: result.tool_calls.filter((call) => call.decision === "deny" || call.refusal)
      .map((
        call,
      ) => ({ tool_name: call.name, tool_use_id: call.id, tool_input: call.arguments })),
    ...("structured_output" in result ? { structured_output: result.structured_output } : {}),
    ...(subtype === "success" ? {} : { errors: result.errors.map((e) => e.message) }),
    svc: result,
  };
}
