import type { ChatToolCall, Usage } from "../provider/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { AskRequest, ToolOutput } from "../tool/types.ts";
import type {
  EngineEvent,
  ToolCallRecord,
  TurnContext,
  TurnError,
  TurnReason,
  TurnResult,
  TurnStatus,
} from "./events.ts";
import type { ApprovalMemory } from "../tool/approval.ts";
import { prepareSchemas, type ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import type { EngineDeps } from "./deps.ts";
import { type CallEnv, runToolCalls, TOKEN_CAP_REFUSAL } from "./calls.ts";
import { TurnCheckpoint } from "../session/checkpoint_record.ts";
import { buildContext } from "./context.ts";
import { ContextGauge, type RoundSender, sendRound } from "./auto_compact.ts";
import { addUsage, type RoundOutcome } from "./round.ts";
import { type LimitReached, TurnBudget } from "./budget.ts";
import { turnResult } from "./result.ts";
import { composeSystemMessages } from "./system_prompt.ts";
import { environmentBlock } from "./environment_block.ts";
import { type StructuredAnswer, StructuredTurn } from "./structured.ts";
import { webSearchBlock } from "./web_inject.ts";
import { appendHookContext, promptHooks, stopHooks } from "./turn_hooks.ts";
import { imageInput, imagesRefused, logHasImages } from "./image_input.ts";
import type { ToolImage } from "../tool/types.ts";

/** A turn that keeps calling tools stops after this many rounds. */
export const MAX_ROUNDS = 64;

/** How a turn's tools reach people and other agents: the `ask` and `delegate` channels. */
export interface TurnChannels {
  ask(request: AskRequest): Promise<string | null>;
  delegate(type: string, task: string): Promise<ToolOutput>;
}

/** What a turn uses of its engine. */
export interface TurnEngine extends RoundSender {
  readonly deps: EngineDeps;
  toolView(): ToolRegistry;
  offeredTools(view: ToolRegistry): Tool[];
  approvals(session: SessionLog): ApprovalMemory;
}

/** One turn of an engine: prompt in, rounds of streaming and tool calls, TurnResult out. */
export class Turn {
  readonly #started = performance.now();
  #errors: TurnError[] = [];
  #records: ToolCallRecord[] = [];
  #usage: Usage | null = null;
  #content = "";
  #thinking = "";
  /** Why the turn stopped; set where it ends (`#end`), else taken from the status. */
  #reason: TurnReason | null = null;
  #rounds = 0;
  #context: TurnContext = { estimated_tokens: 0, window: null };
  /** The schema the final answer must validate against (`--json-schema`), if any. */
  #structured: StructuredTurn | null = null;
  #budgetOf?: TurnBudget;
  #gauge?: ContextGauge;
  /** What the turn's tools change, kept for `svc undo` (sessions on disk only). */
  #checkpoint?: TurnCheckpoint;

  constructor(
    readonly engine: TurnEngine,
    readonly session: SessionLog,
    readonly signal: AbortSignal,
    readonly emit: (event: EngineEvent) => void,
  ) {}

  /** The turn's usage, cost and limits (issue 30). */
  get #budget(): TurnBudget {
    return this.#budgetOf ??= new TurnBudget(this.engine.deps, this.emit);
  }

  /** Runs the turn; everything it appended is durable before the result is returned. */
  async run(
    prompt: string,
    channels: TurnChannels & { structured?: StructuredAnswer; images?: readonly ToolImage[] },
  ) {
    const { deps } = this.engine;
    const images = channels.images ?? [];
    const refused = images.length ? await imagesRefused(deps, images) : null;
    if (refused) return await this.#refused("images_not_accepted", refused);
    const hookEnv = { session: this.session, signal: this.signal, emit: this.emit };
    const gate = await promptHooks(deps, { ...hookEnv, prompt });
    if (gate.blocked !== undefined) return await this.#promptBlocked(gate.blocked);
    // The prompt is not acknowledged yet: its write may wait up to 25 ms to share the write of
    // whatever comes next (often the answer), and is awaited before the result is returned.
    const promptWritten = this.session.appendMessage({
      role: "user",
      content: prompt,
      timestamp: new Date().toISOString(),
      ...(images.length ? { images: [...images] } : {}),
    }, { deferMs: 25 });
    promptWritten.catch(() => {}); // awaited below; this only marks the rejection as handled
    this.emit({ type: "session", name: this.session.name });
    const view = this.engine.toolView();
    const offered = this.engine.offeredTools(view);
    // Started now: a new session's git status runs while the prompt is being stored.
    const environment = environmentBlock({
      deps,
      session: this.session,
      offered,
      clock: deps.clock,
    }).catch((err) => {
      this.emit({ type: "warning", message: `environment block left out: ${err.message}` });
      return undefined;
    });
    const env: CallEnv = {
      deps,
      session: this.session,
      signal: this.signal,
      emit: this.emit,
      view,
      offered: offered.map((t) => t.name),
      memory: this.engine.approvals(this.session),
      ask: channels.ask,
      delegate: channels.delegate,
      ...(this.session.path
        ? { checkpoint: this.#checkpoint = new TurnCheckpoint(deps.worktree, prompt) }
        : {}),
    };
    if (deps.config.web_search && !this.signal.aborted) await this.#inject(prompt, env);
    if (gate.context) await appendHookContext(this.session, gate.context);
    const system = await composeSystemMessages(deps.config, deps.worktree, {
      typePrompt: deps.typePrompt,
      environment: await environment,
    });
    if (channels.structured) {
      this.#structured = new StructuredTurn(channels.structured);
      system.push(this.#structured.instruction());
    }
    await prepareSchemas(offered);
    const schemas = offered.map((t) => view.schemaOf(t));
    let status: TurnStatus | null = null;
    let stopped = 0;
    for (let round = 1; status === null; round++) {
      status = round > MAX_ROUNDS
        ? await this.#roundLimit()
        : await this.#stopAt(this.#budget.reached(this.#rounds), [], env) ??
          await this.#round(system, schemas, env);
      // A Stop hook that blocks the stop sends its reason to the model and the turn goes on.
      if (
        status === "ok" &&
        await stopHooks(deps, { ...hookEnv, active: stopped++ > 0 }) !== undefined
      ) {
        status = null;
      }
    }
    await promptWritten;
    return await this.#finish(status);
  }

  /** A UserPromptSubmit hook blocked the prompt: it is not sent, and the turn ends `error`. */
  async #promptBlocked(reason: string): Promise<TurnResult> {
    this.emit({ type: "session", name: this.session.name });
    this.emit({ type: "warning", message: `UserPromptSubmit hook blocked the prompt: ${reason}` });
    await this.#fail({ code: "hook_blocked", message: reason, at: new Date().toISOString() });
    return await this.#finish("error");
  }

  /** The prompt cannot be sent as it is (`code`): nothing is sent, and the turn ends `error`. */
  async #refused(code: string, message: string): Promise<TurnResult> {
    this.emit({ type: "session", name: this.session.name });
    this.emit({ type: "error", code, message });
    await this.#fail({ code, message, at: new Date().toISOString() });
    this.#reason = "setup_error";
    return await this.#finish("error");
  }

  async #inject(prompt: string, env: CallEnv): Promise<void> {
    const block = await webSearchBlock(prompt, env);
    if (!block) return;
    await this.session.appendMessage({
      role: "system",
      content: block,
      timestamp: new Date().toISOString(),
    });
  }

  /** One streamed request and the tool calls it asked for; a status when the turn ends. */
  async #round(
    system: string[],
    schemas: ReturnType<CallEnv["view"]["schemaOf"]>[],
    env: CallEnv,
  ): Promise<TurnStatus | null> {
    const { deps } = this.engine;
    const roundStart = performance.now();
    const images = logHasImages(this.session.data.messages) && (await imageInput(deps)).accepted;
    const build = () => ({
      model: deps.model,
      messages: buildContext(system, this.session.data.messages, {
        live: this.session.live,
        images,
      }),
      tools: schemas.length ? schemas : undefined,
      temperature: deps.config.temperature,
      max_tokens: deps.config.max_tokens,
      reasoning: deps.config.reasoning,
      response_format: this.#structured?.responseFormat(deps.provider, schemas.length > 0),
    });
    this.#rounds++;
    // Compacts first when the request would pass the threshold, or once when it is refused.
    const sent = await sendRound({
      engine: this.engine,
      gauge: this.#gauge ??= new ContextGauge(deps, this.session),
      signal: this.signal,
      emit: this.emit,
    }, build);
    const outcome = sent.outcome;
    this.#context = sent.context;
    for (const usage of sent.summaries) {
      this.#budget.addSummary(usage);
      this.#usage = addUsage(this.#usage, usage);
    }
    Object.assign(outcome, this.#budget.add(outcome, this.#context.estimated_tokens));
    this.#usage = addUsage(this.#usage, outcome.usage);
    this.#thinking += outcome.thinking;
    const calls = outcome.completed || outcome.finishReason === "tool_calls"
      ? outcome.toolCalls
      : completeCallsOnly(outcome.toolCalls);
    // Taken before the write, so a turn whose session cannot be written still returns it.
    if (outcome.content) {
      this.#content = this.#content ? `${this.#content}\n\n${outcome.content}` : outcome.content;
    }
    this.#emitAssistant(outcome, calls, env);
    await this.#appendAssistant(outcome, calls, roundStart);
    if (this.signal.aborted) return this.#end("cancelled", "cancelled");
    if (outcome.error) await this.#fail(outcome.error);
    // Tool calls that arrived before the stream broke still run; the loop continues.
    if (outcome.error && calls.length === 0) return this.#streamFailed();
    if (calls.length === 0) return await this.#answered(outcome);
    if (outcome.finishReason === "length") {
      // A round cut at the cap may have cut a call's arguments into other valid JSON: none runs,
      // each is answered so the history stays valid, and the turn ends as a cut answer does.
      this.#records.push(...await runToolCalls(calls, env, TOKEN_CAP_REFUSAL));
      return await this.#answered(outcome);
    }
    const limit = this.#budget.reached(this.#rounds);
    if (limit) return await this.#stopAt(limit, calls, env);
    this.#records.push(...await runToolCalls(calls, env));
    return this.signal.aborted ? this.#end("cancelled", "cancelled") : null;
  }

  /**
   * A limit of the turn was reached (null: none was): the round's `calls` are answered as not
   * run, so the history stays valid, and the turn ends `truncated` with the limit as its reason.
   */
  async #stopAt(
    limit: LimitReached | null,
    calls: ChatToolCall[],
    env: CallEnv,
  ): Promise<TurnStatus | null> {
    if (!limit) return null;
    const refusal = `the turn reached its ${limit.reason} limit`;
    if (calls.length) this.#records.push(...await runToolCalls(calls, env, refusal));
    this.emit({ type: "warning", message: limit.message });
    await this.#fail({ code: limit.reason, message: limit.message, at: new Date().toISOString() });
    return this.#end("truncated", limit.reason);
  }

  /** Ends the turn with `status` for `reason`. */
  #end(status: TurnStatus, reason: TurnReason): TurnStatus {
    this.#reason = reason;
    return status;
  }

  /** The round's assistant message is complete: the `assistant_message` event. */
  #emitAssistant(outcome: RoundOutcome, calls: ChatToolCall[], env: CallEnv): void {
    if (!outcome.content && !calls.length && !outcome.thinking) return;
    this.emit({
      type: "assistant_message",
      round: this.#rounds,
      content: outcome.content,
      thinking: outcome.thinking,
      tool_calls: calls.map((call) => ({
        id: call.id,
        name: env.view.resolve(call.function.name)?.name ?? call.function.name,
        arguments: call.function.arguments,
      })),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      finish_reason: outcome.finishReason,
    });
  }

  async #appendAssistant(outcome: RoundOutcome, calls: ChatToolCall[], roundStart: number) {
    if (!outcome.content && !calls.length && !outcome.thinking) return;
    const { deps } = this.engine;
    await this.session.appendMessage({
      role: "assistant",
      content: outcome.content,
      timestamp: new Date().toISOString(),
      model: deps.model,
      provider: deps.provider,
      duration: Math.round(performance.now() - roundStart) / 1000,
      thinking: outcome.thinking,
      reasoning: deps.config.reasoning,
      ...(calls.length ? { tool_calls: calls } : {}),
      ...(outcome.providerFields ? { provider_fields: outcome.providerFields } : {}),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(typeof outcome.cost_usd === "number" ? { cost_usd: outcome.cost_usd } : {}),
      finish_reason: outcome.finishReason,
      ...(outcome.completed ? {} : { partial: true }),
    });
  }

  #streamFailed(): TurnStatus {
    if (this.#records.length > 0) {
      this.emit({
        type: "warning",
        message: "Tool results are saved in the session; send a follow-up to retry",
      });
    }
    return this.#end("error", "stream_error");
  }

  /**
   * The model answered without tool calls: ok, empty, or cut at the token cap; with a schema, a
   * valid answer, a repair round (null) or schema_invalid.
   */
  async #answered(outcome: RoundOutcome): Promise<TurnStatus | null> {
    if (outcome.finishReason !== "length") {
      if (this.#structured) return await this.#structuredAnswer(outcome.content);
      return outcome.content.trim() ? this.#end("ok", "answered") : this.#end("empty", "empty");
    }
    const cap = this.engine.deps.config.max_tokens;
    const message = cap > 0
      ? `Answer cut off at the configured max_tokens cap (${cap}); raise max_tokens, or set it to 0 to use the provider default`
      : "Answer cut off by the provider's default output limit (max_tokens is 0, so none was sent); set max_tokens to allow a longer answer";
    this.emit({ type: "warning", message });
    await this.#fail({ code: "max_tokens", message, at: new Date().toISOString() });
    return this.#end("truncated", "max_tokens");
  }

  /** Judges a structured answer; an invalid one is answered with a repair request (a round). */
  async #structuredAnswer(content: string): Promise<TurnStatus | null> {
    const verdict = this.#structured!.judge(content);
    if (verdict.kind === "valid") return this.#end("ok", "answered");
    if (verdict.kind === "invalid") {
      for (const error of verdict.errors) await this.#fail(error);
      const listed = verdict.errors.map((error) => error.message).join("; ");
      const message = `The answer does not validate against the JSON Schema: ${listed}`;
      this.emit({ type: "error", code: "schema_invalid", message });
      return this.#end("error", "schema_invalid");
    }
    this.emit({ type: "status", message: "The answer does not match the JSON Schema: repairing" });
    await this.session.appendMessage({
      role: "user",
      content: verdict.message,
      timestamp: new Date().toISOString(),
    });
    return this.signal.aborted ? this.#end("cancelled", "cancelled") : null;
  }

  async #roundLimit(): Promise<TurnStatus> {
    await this.#fail({
      code: "round_limit",
      message: `Stopped after ${MAX_ROUNDS} rounds of tool calls`,
    });
    return this.#end("error", "round_limit");
  }

  async #fail(error: TurnError): Promise<void> {
    this.#errors.push(error);
    await this.session.appendError(error);
  }

  /** The result of what the turn has done so far, with `errors` added to its own. */
  result(status: TurnStatus, errors: TurnError[] = []): TurnResult {
    const { deps } = this.engine;
    return turnResult({
      status,
      content: this.#content,
      thinking: this.#thinking,
      tool_calls: this.#records,
      errors: [...this.#errors, ...errors],
      usage: this.#usage,
      cost_usd: this.#budgetOf?.cost ?? null,
      reason: this.#reason ?? undefined,
      rounds: this.#rounds,
      context: this.#context,
      structured_output: this.#structured?.value,
      started: this.#started,
      model: deps.model,
      provider: deps.provider,
      session: this.session.name,
    });
  }

  async #finish(status: TurnStatus): Promise<TurnResult> {
    await this.#checkpoint?.save(this.session.name).catch((err) =>
      this.emit({ type: "warning", message: `checkpoint not saved: ${(err as Error).message}` })
    );
    const result = this.result(status);
    // Everything this turn appended is durable before anyone sees the result.
    await this.session.sync();
    this.emit({ type: "done", result });
    return result;
  }
}

/** Drops tool calls whose argument JSON was cut off mid-stream. */
function completeCallsOnly(calls: ChatToolCall[]): ChatToolCall[] {
  return calls.filter((call) => {
    try {
      JSON.parse(call.function.arguments || "{}");
      return true;
    } catch {
      return false;
    }
  });
}
