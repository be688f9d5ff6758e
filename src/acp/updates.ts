/**
 * svc's engine events as ACP `session/update`s: pure functions, the ACP face of the one event
 * schema (src/engine/events.ts) that `--output stream-json` maps too (src/runtime/stream_json.ts).
 * Text and thinking deltas become message and thought chunks, a tool call's start a `tool_call`
 * with its kind, title and locations, its end a `tool_call_update` with the result; the rest
 * (status lines, warnings, compaction) goes to the log, not the editor.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { EngineEvent, TurnResult } from "../runtime/mod.ts";
import { resolve } from "../util/posix_path.ts";

/** What the mapping needs besides the event: the worktree and the category of a tool. */
export interface UpdateContext {
  worktree: string;
  /** The svc category of a tool (`read`, `edit`, `bash`, ...), or undefined when unknown. */
  category(tool: string): string | undefined;
}

/** ACP tool kinds of svc's tool categories; a category not listed is `other`. */
const KINDS: Record<string, acp.ToolKind> = {
  read: "read",
  list: "search",
  edit: "edit",
  bash: "execute",
  web: "fetch",
  delegate: "think",
};

/** The ACP kind of a tool call: by its category; `list_dir` and `glob` search, a grep too. */
export function toolKind(tool: string, ctx: Pick<UpdateContext, "category">): acp.ToolKind {
  return KINDS[ctx.category(tool) ?? ""] ?? "other";
}

/** The file a call works on, absolute: its `path` (or `file`) argument. */
export function callPath(args: Record<string, unknown>, worktree: string): string | undefined {
  const path = args.path ?? args.file;
  return typeof path === "string" && path ? resolve(worktree, path) : undefined;
}

/** Where a call works: the file and, for a read from a line on, that line. */
export function toolLocations(
  args: Record<string, unknown>,
  worktree: string,
): acp.ToolCallLocation[] {
  const path = callPath(args, worktree);
  if (!path) return [];
  const line = typeof args.offset === "number" ? args.offset : undefined;
  return [line ? { path, line } : { path }];
}

/** A short title for the editor's tool card: `Read notes.txt`, `Run npm test`, `grep TODO`. */
export function toolTitle(tool: string, args: Record<string, unknown>): string {
  const path = typeof (args.path ?? args.file) === "string" ? String(args.path ?? args.file) : "";
  const short = (text: string) => text.length > 80 ? `${text.slice(0, 79)}…` : text;
  if (tool === "file_read" && path) return `Read ${path}`;
  if (tool === "file_write" && path) return `Write ${path}`;
  if (tool === "file_edit" && path) return `Edit ${path}`;
  if (typeof args.command === "string") return short(`Run ${args.command}`);
  const first = Object.values(args).find((value) => typeof value === "string") as
    | string
    | undefined;
  return short(first ? `${tool} ${first}` : tool);
}

/** A text block. */
export const text = (value: string): acp.ContentBlock => ({ type: "text", text: value });

/** The `tool_call` that announces a call. */
export function toolCallStart(
  call: { id: string; name: string; args: Record<string, unknown> },
  ctx: UpdateContext,
): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: toolTitle(call.name, call.args),
    kind: toolKind(call.name, ctx),
    status: "in_progress",
    locations: toolLocations(call.args, ctx.worktree),
    rawInput: call.args,
  };
}

/** The updates of one engine event; empty for what the editor is not shown. */
export function eventUpdates(event: EngineEvent, ctx: UpdateContext): acp.SessionUpdate[] {
  switch (event.type) {
    case "token":
      return event.content
        ? [{ sessionUpdate: "agent_message_chunk", content: text(event.content) }]
        : [];
    case "thinking":
      return event.content
        ? [{ sessionUpdate: "agent_thought_chunk", content: text(event.content) }]
        : [];
    case "tool_start":
      return [toolCallStart({ id: event.call.id, name: event.name, args: event.args }, ctx)];
    case "tool_end":
      return [{
        sessionUpdate: "tool_call_update",
        toolCallId: event.id,
        status: event.ok ? "completed" : "failed",
        content: [{ type: "content", content: text(event.content) }],
        rawOutput: { content: event.content, decision: event.decision },
      }];
    default:
      return [];
  }
}

/**
 * The ACP stop reason of a finished turn, or null for a turn that failed (the prompt request then
 * answers an error). `max_tokens_total` and `max_cost` are budgets of the whole turn, reported as
 * `max_turn_requests` like the round limits: the turn stopped asking the model, not one answer.
 */
export function stopReason(result: Pick<TurnResult, "status" | "reason">): acp.StopReason | null {
  switch (result.reason) {
    case "answered":
    case "empty":
    case "schema_invalid":
      return "end_turn";
    case "max_tokens":
      return "max_tokens";
    case "max_turns":
    case "round_limit":
    case "max_tokens_total":
    case "max_cost":
      return "max_turn_requests";
    case "cancelled":
      return "cancelled";
    default:
      return result.status === "cancelled" ? "cancelled" : null;
  }
}
