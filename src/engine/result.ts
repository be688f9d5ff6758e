import type { Usage } from "../provider/types.ts";
import type {
  ToolCallRecord,
  TurnContext,
  TurnError,
  TurnReason,
  TurnResult,
  TurnStatus,
} from "./events.ts";

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
  /** USD; null (the default) when the model has no price. */
  cost_usd?: number | null;
  /** Default: what the status says (`ok` answered, `truncated` max_tokens, `error` stream_error). */
  reason?: TurnReason;
  rounds?: number;
  context?: TurnContext;
  /** The valid structured answer (structured.ts); left out when undefined. */
  structured_output?: unknown;
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
    cost_usd: outcome.cost_usd ?? null,
    model: outcome.model,
    provider: outcome.provider,
    session: outcome.session,
    status: outcome.status,
    reason: outcome.reason ?? REASON_OF_STATUS[outcome.status],
    rounds: outcome.rounds ?? 0,
    context: outcome.context ?? { estimated_tokens: 0, window: null },
    ...(outcome.structured_output !== undefined
      ? { structured_output: outcome.structured_output }
      : {}),
  };
}

/** The reason of a turn that names none, from its status. */
const REASON_OF_STATUS: Record<TurnStatus, TurnReason> = {
  ok: "answered",
  empty: "empty",
  truncated: "max_tokens",
  error: "stream_error",
  cancelled: "cancelled",
};
