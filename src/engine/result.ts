import type { Usage } from "../provider/types.ts";
import type { ToolCallRecord, TurnError, TurnResult, TurnStatus } from "./events.ts";

/** The parts of a TurnResult; what is left out is empty. */
export interface TurnOutcome {
  status: TurnStatus;
  model: string;
  provider: string;
  session: string;
  content?: string;
  thinking?: string;
  tool_calls?: ToolCallRecord[];
  errors?: TurnError[];
  usage?: Usage | null;
  /** When the turn started (performance.now()); duration 0 when absent. */
  started?: number;
}

/** Builds a TurnResult: the one place every front-end and the engine get one from. */
export function turnResult(outcome: TurnOutcome): TurnResult {
  return {
    content: outcome.content ?? "",
    thinking: outcome.thinking ?? "",
    tool_calls: outcome.tool_calls ?? [],
    errors: outcome.errors ?? [],
    duration: outcome.started === undefined
      ? 0
      : Math.round(performance.now() - outcome.started) / 1000,
    usage: outcome.usage ?? null,
    model: outcome.model,
    provider: outcome.provider,
    session: outcome.session,
    status: outcome.status,
  };
}
