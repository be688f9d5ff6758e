/**
 * Automatic compaction (docs/sessions.md#automatic-compaction): before each round the request's
 * size is estimated against the model's context window, and a request that would pass
 * `compaction.threshold` of it is compacted first (the `/compact` summary, PreCompact hooks with
 * trigger `auto`); a request the backend still refuses as too long is compacted once and sent
 * again, never more.
 */
import type { Config } from "../config/schema.ts";
import { CONTEXT_OVERFLOW, overflowWindow } from "../provider/context_overflow.ts";
import type { ChatRequest, Usage } from "../provider/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { CompactionResult } from "./compaction.ts";
import { compactionPlan } from "./compaction.ts";
import { requestContext } from "./context_size.ts";
import type { EngineDeps } from "./deps.ts";
import type { EngineEvent, TurnContext } from "./events.ts";
import { type RoundOutcome, streamRound } from "./round.ts";

/** The window svc assumes when neither the config nor the backend names one. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/**
 * When the window is not configured, the backend is asked for it (once per process) only when a
 * request would pass the threshold of the default window: that is when the answer changes what
 * svc does (a larger window spares the compaction). A smaller window than the default is learned
 * from the backend's overflow error, which names it. Short runs never pay for the probe.
 */
function probeFrom(threshold: number): number {
  return (threshold > 0 ? threshold : 1) * DEFAULT_CONTEXT_WINDOW;
}

/** The calibration ratio is kept within these bounds (a backend's odd usage cannot run away). */
const RATIO_BOUNDS = [0.25, 4] as const;

/** Per session: reported prompt tokens per estimated token of the last round that had usage. */
const ratios = new WeakMap<SessionLog, number>();
/** Per process, `baseUrl\nmodel`: the window an overflow error named. */
const learned = new Map<string, number>();

/** The window the config names for (provider, model): a number, or its `provider/model` entry. */
export function configuredWindow(
  config: Pick<Config, "context_window">,
  model: { provider: string; model: string },
): number | null {
  const setting = config.context_window;
  if (typeof setting === "number") return setting;
  if (!setting) return null;
  return setting[`${model.provider}/${model.model}`] ?? setting[model.model] ?? null;
}

/** The estimated size of one turn's requests against the model's window. */
export class ContextGauge {
  #probed: number | null = null;
  /** A threshold compaction failed or found nothing to do: not tried again this turn. */
  #gaveUp = false;

  constructor(
    readonly deps: Pick<EngineDeps, "config" | "client" | "provider" | "model">,
    readonly session: SessionLog,
  ) {}

  /** The session's calibration ratio (1 until a round reported `prompt_tokens`). */
  get ratio(): number {
    return ratios.get(this.session) ?? 1;
  }

  /** The request's calibrated estimate and the window. */
  async measure(request: ChatRequest): Promise<TurnContext & { window: number; raw: number }> {
    const raw = requestContext(request).estimated_tokens;
    const estimated = Math.round(raw * this.ratio);
    return { estimated_tokens: estimated, window: await this.window(estimated), raw };
  }

  /** The window: one an overflow named, else config, else the backend's, else the default. */
  async window(estimated = 0): Promise<number> {
    const { config, client, provider, model } = this.deps;
    const named = learned.get(`${client.baseUrl}\n${model}`) ??
      configuredWindow(config, { provider, model });
    if (named) return named;
    const from = probeFrom(config["compaction.threshold"]);
    if (this.#probed === null && client.contextWindow && estimated >= from) {
      this.#probed = await client.contextWindow(model);
    }
    return this.#probed ?? DEFAULT_CONTEXT_WINDOW;
  }

  /** Whether a request of `context` should be compacted before it is sent. */
  over(context: TurnContext & { window: number }): boolean {
    const threshold = this.deps.config["compaction.threshold"];
    return !this.#gaveUp && threshold > 0 && context.estimated_tokens >= threshold * context.window;
  }

  /** Learns the ratio from a round's usage (`raw` the uncalibrated estimate of its request). */
  calibrate(raw: number, usage: Usage | undefined): void {
    const reported = usage?.prompt_tokens;
    if (usage?.estimated || typeof reported !== "number" || reported <= 0 || raw <= 0) return;
    const [low, high] = RATIO_BOUNDS;
    ratios.set(this.session, Math.min(high, Math.max(low, reported / raw)));
  }

  /**
   * Remembers (for the process) the window an overflow error named, else the refused request's
   * estimate: the window is smaller than that (Ollama's wording names no window).
   */
  learn(message: string, refused: number): void {
    const window = overflowWindow(message) ?? (refused > 0 ? refused : null);
    if (window) learned.set(`${this.deps.client.baseUrl}\n${this.deps.model}`, window);
  }

  giveUp(): void {
    this.#gaveUp = true;
  }
}

/** What sending a round needs of its turn. */
export interface RoundSender {
  deps: EngineDeps;
  compact(
    session: SessionLog,
    signal: AbortSignal,
    options: {
      trigger: "auto";
      onEvent: (event: EngineEvent) => void;
      reason: "threshold" | "overflow";
      context: { estimated_tokens: number; window: number };
      maxChars: number;
    },
  ): Promise<CompactionResult>;
}

/**
 * Sends one round: compacts first when the request would pass the threshold, and once more (then
 * sends again) when the backend refuses it as too long. `build` makes the request from the session
 * as it is now. Returns the round's outcome, the context of the request last sent and the usage
 * of each summary request made for it (a part of the turn's usage).
 */
export async function sendRound(
  env: {
    engine: RoundSender;
    gauge: ContextGauge;
    signal: AbortSignal;
    emit: (event: EngineEvent) => void;
  },
  build: () => ChatRequest,
): Promise<{ outcome: RoundOutcome; context: TurnContext; summaries: Usage[] }> {
  const { engine, gauge, signal, emit } = env;
  const summaries: Usage[] = [];
  const compact = async (
    reason: "threshold" | "overflow",
    context: TurnContext & { window: number },
  ) => {
    if (!compactionPlan(gauge.session.data.messages, engine.deps.config.compact_keep)) return false;
    const result = await engine.compact(gauge.session, signal, {
      trigger: "auto",
      onEvent: emit,
      reason,
      context: { estimated_tokens: context.estimated_tokens, window: context.window },
      // The summary request itself must fit: half the window, in characters.
      maxChars: Math.floor(context.window * 2 / gauge.ratio),
    });
    if (result.ok) summaries.push(result.usage);
    else emit({ type: "warning", message: `automatic compaction: ${result.message}` });
    return result.ok;
  };
  let request = build();
  let context = await gauge.measure(request);
  if (gauge.over(context)) {
    if (await compact("threshold", context)) context = await gauge.measure(request = build());
    else gauge.giveUp();
  }
  const held: { error?: Extract<EngineEvent, { type: "error" }> } = {};
  let outcome = await streamRound(engine.deps.client, request, {
    signal,
    emit: (e) => e.type === "error" && e.code === CONTEXT_OVERFLOW ? (held.error = e) : emit(e),
  });
  if (held.error && !signal.aborted) {
    gauge.learn(held.error.message, context.estimated_tokens);
    const window = await gauge.window(context.estimated_tokens);
    if (await compact("overflow", { ...context, window })) {
      context = await gauge.measure(request = build());
      outcome = await streamRound(engine.deps.client, request, { signal, emit });
      if (outcome.error?.code === CONTEXT_OVERFLOW) {
        emit({
          type: "warning",
          message: "the request is still longer than the model's context window after compaction",
        });
      }
    } else emit(held.error);
  }
  gauge.calibrate(context.raw, outcome.usage);
  return {
    outcome,
    context: { estimated_tokens: context.estimated_tokens, window: context.window },
    summaries,
  };
}
