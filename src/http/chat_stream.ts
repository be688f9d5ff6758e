/**
 * A streamed /chat turn: the lines of `svc run --output stream-json` (src/runtime/stream_json.ts,
 * the one schema) as Server-Sent Events, `event:` each line's type, ending with the `result` line.
 */
import type { EngineEvent, HeadlessInfo, TurnResult } from "../runtime/mod.ts";
import { setupFailure } from "../runtime/headless.ts";
import {
  eventLines,
  initLine,
  resultLine,
  type StreamApprovals,
  svcEventLine,
} from "../runtime/stream_json.ts";
import { sseWriter } from "./sse.ts";

/** What a streamed turn needs to describe itself in its `init` line. */
export interface StreamDeps {
  info?: () => HeadlessInfo;
  version?: string;
  keepAliveMs?: number;
}

/** The stream of one turn. */
export interface ChatStream {
  response: Response;
  event(event: EngineEvent): void;
  /** An event of the server's own (`approval_request`) as a `system` / `svc_event` line. */
  svcEvent(event: { type: string } & Record<string, unknown>): void;
  /** The `result` line, then the end of the stream. */
  result(result: TurnResult): void;
  /** A turn that threw still ends with a `result` line (setup_error). */
  failed(message: string): void;
}

/** How one streamed turn runs: its client's choices in the /chat body. */
export interface StreamOptions {
  deps: StreamDeps;
  /** Runs when the client goes away. */
  onCancel: () => void;
  /** `include_partial_messages`: text and thinking deltas as `stream_event` lines. */
  partial?: boolean;
  /** `client` when the turn's ask-gated calls wait for the client (`"approvals": "client"`). */
  approvals?: StreamApprovals;
}

/** Opens the event stream of a turn in `session`. */
export function chatStream(session: string, options: StreamOptions): ChatStream {
  const { deps, onCancel } = options;
  const sse = sseWriter({ keepAliveMs: deps.keepAliveMs, onCancel });
  const info = deps.info?.();
  const ctx = { session_id: session, model: info?.model ?? "", partial: options.partial ?? false };
  if (info) {
    const run = { session_id: session, version: deps.version ?? "", warnings: [] };
    sse.send(initLine(info, { ...run, approvals: options.approvals ?? "default" }));
  }
  let ended = false;
  const result = (turn: TurnResult) => {
    if (ended) return;
    ended = true;
    sse.send(resultLine(turn, { session_id: turn.session || session }));
    sse.close();
  };
  return {
    response: sse.response,
    event(event) {
      if (event.type === "session") ctx.session_id = event.name;
      for (const line of eventLines(event, ctx)) sse.send(line);
    },
    svcEvent: (event) => sse.send(svcEventLine(event, ctx)),
    result,
    failed(message) {
      result(setupFailure({ code: "internal", message }, { model: ctx.model, session }));
    },
  };
}

/** Whether a /chat request asked for an event stream (`Accept: text/event-stream`). */
export function acceptsEvents(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return accept.split(",").some((part) =>
    part.split(";")[0].trim().toLowerCase() === "text/event-stream"
  );
}
