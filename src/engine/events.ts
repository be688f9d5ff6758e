import type { ChatToolCall, Usage } from "../provider/types.ts";
import type { Action, TurnError, TurnStatus } from "../shared/types.ts";
export type { TurnError, TurnStatus };

/** One executed (or refused) tool call of a turn. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  decision: Action | "cancelled";
  ok: boolean;
  duration: number;
}

/** The structured result of every turn. */
export interface TurnResult {
  content: string;
  thinking: string;
  tool_calls: ToolCallRecord[];
  errors: TurnError[];
  /** Seconds. */
  duration: number;
  usage: Usage | null;
  model: string;
  provider: string;
  session: string;
  status: TurnStatus;
}

/** Events emitted by the engine during a turn; front-ends render them. */
export type EngineEvent =
  | { type: "thinking"; content: string }
  | { type: "token"; content: string }
  | { type: "tool_start"; call: ChatToolCall; name: string; args: Record<string, unknown> }
  | {
    type: "tool_end";
    id: string;
    name: string;
    ok: boolean;
    content: string;
    status?: string;
    decision: Action | "cancelled";
  }
  | { type: "warning"; message: string }
  | { type: "error"; code: string; message: string }
  | { type: "status"; message: string }
  | { type: "session"; name: string }
  | { type: "done"; result: TurnResult };
