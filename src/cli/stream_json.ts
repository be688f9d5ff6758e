/**
 * `svc run --output stream-json` and `svc jobs run --output stream-json`: the run as one JSON
 * object per line on stdout (the mapping is
 * the runtime's, src/runtime/stream_json.ts). Each line is encoded whole, newline included, and
 * written with one write (repeated only for what the OS did not take), so a reader that splits on
 * newlines never sees part of a line; stdout carries nothing else.
 */
import { setupFailure } from "../runtime/headless.ts";
import type { EngineEvent, HeadlessInfo, TurnError, TurnResult } from "../runtime/mod.ts";
import {
  eventLines,
  initLine,
  resultLine,
  type StreamApprovals,
  type StreamJsonLine,
  svcEventLine,
} from "../runtime/stream_json.ts";
import { writeAllSync } from "../util/write_all.ts";
import { VERSION } from "../version.ts";

/** One line of JSON text: U+2028 and U+2029 escaped too, so no reader takes them for a break. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")}\n`;
}

/** What the writer needs of `svc run`'s (or `svc jobs run`'s) flags. */
export interface StreamJsonFlags {
  includePartialMessages?: boolean;
  yes?: boolean;
  no?: boolean;
  model?: string;
  provider?: string;
  sessionId?: string;
}

/**
 * The stream of one `svc run` or job run: init, the events as they happen, and always a result
 * line.
 */
export class StreamJsonOutput {
  readonly #started = performance.now();
  readonly #flags: StreamJsonFlags;
  readonly #write: (text: string) => void;
  #warnings: string[] = [];
  #session = "";
  #model = "";
  #ended = false;

  constructor(flags: StreamJsonFlags, write = (text: string) => writeAllSync(Deno.stdout, text)) {
    this.#flags = flags;
    this.#write = write;
    this.#session = flags.sessionId ?? "";
    this.#model = flags.model ?? "";
  }

  /** What `runtime.start()` warned of (an MCP server that did not connect). */
  warnings(list: readonly string[]): void {
    this.#warnings.push(...list);
  }

  /** The `system` / `init` line of a prepared run. */
  init(setup: { session: string; info: HeadlessInfo }): void {
    this.#session = setup.session;
    this.#model = setup.info.model;
    this.#line(initLine(setup.info, {
      session_id: setup.session,
      version: VERSION,
      approvals: this.#approvals(),
      warnings: this.#warnings,
    }));
  }

  /** The lines of one engine event. */
  event(event: EngineEvent): void {
    const ctx = {
      session_id: this.#session,
      model: this.#model,
      partial: Boolean(this.#flags.includePartialMessages),
    };
    for (const line of eventLines(event, ctx)) this.#line(line);
  }

  /** A team's stage started or ended, as an svc event. */
  stage(stage: { stage: number; of: number; type: string; report?: unknown }): void {
    const { type: agent_type, ...rest } = stage;
    this.svcEvent({ type: "stage", agent_type, ...rest });
  }

  /** An event of the front-end's own (a job's attempts and run) as a `system` / `svc_event` line. */
  svcEvent(event: { type: string } & Record<string, unknown>): void {
    this.#line(svcEventLine(event, { session_id: this.#session }));
  }

  /** The last line; later calls write nothing. */
  result(result: TurnResult): void {
    if (this.#ended) return;
    this.#ended = true;
    const session_id = result.session || this.#session;
    const duration_ms = Math.round(performance.now() - this.#started);
    this.#line(resultLine(result, { session_id, duration_ms }));
  }

  /**
   * A run that threw (or, given `error`, failed before any turn) instead of returning a result
   * still ends with a result line.
   */
  unfinished(
    error: TurnError = { code: "internal", message: "the run ended without a result (see stderr)" },
  ): void {
    if (this.#ended) return;
    this.result(setupFailure(error, {
      model: this.#model,
      provider: this.#flags.provider,
      session: this.#session,
    }));
  }

  #approvals(): StreamApprovals {
    return this.#flags.yes ? "yes" : this.#flags.no ? "no" : "default";
  }

  #line(line: StreamJsonLine): void {
    this.#write(jsonLine(line));
  }
}
