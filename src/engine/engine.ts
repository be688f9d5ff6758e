import type { ChatMessage, ChatToolCall, Usage } from "../provider/types.ts";
import { type Session, SessionError } from "../session/session.ts";
import type { AskRequest, Tool } from "../tool/types.ts";
import type { EngineEvent, ToolCallRecord, TurnError, TurnResult, TurnStatus } from "./events.ts";
import type { EngineDeps } from "./context_types.ts";
import { offeredTools } from "./judge.ts";
import { buildContext } from "./context.ts";
import { composeSystemMessages } from "./system_prompt.ts";
import { addUsage, streamRound } from "./round.ts";
import { executeToolCall } from "./tool_call.ts";
import { askLead } from "./ask.ts";
import { webSearchBlock } from "./web_inject.ts";

/** A turn that keeps calling tools stops after this many rounds. */
export const MAX_ROUNDS = 64;

/**
 * Tool calls run per round; the rest of a longer batch are answered "not run" (in one session
 * write) so a runaway or hostile model cannot keep svc busy for minutes in a single round.
 */
export const MAX_CALLS_PER_ROUND = 64;

export interface TurnOptions {
  session: Session;
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
}

/** The agent loop: one engine, driven by every front-end. Touches no terminal or socket. */
export class Engine {
  constructor(readonly deps: EngineDeps) {}

  /** Tools advertised to the model: policy-filtered, canonical names only. */
  offeredTools(): Tool[] {
    return offeredTools(this.deps.registry, this.deps);
  }

  /**
   * Runs one turn to completion; the result is also reflected in the session log. A session
   * that cannot be written (full disk, unwritable `.svc/`) ends the turn with status `error` and
   * a `session_write` error instead of throwing.
   */
  async runTurn(prompt: string, options: TurnOptions): Promise<TurnResult> {
    const started = performance.now();
    try {
      return await this.#runTurn(prompt, options);
    } catch (err) {
      if (!isStorageError(err)) throw err;
      const message =
        `Could not write the session ${options.session.name} (${options.session.path}): ${
          (err as Error).message
        }`;
      const result: TurnResult = {
        content: "",
        thinking: "",
        tool_calls: [],
        errors: [{ code: "session_write", message, at: new Date().toISOString() }],
        duration: Math.round(performance.now() - started) / 1000,
        usage: null,
        model: this.deps.model,
        provider: this.deps.provider,
        session: options.session.name,
        status: "error",
      };
      options.onEvent?.({ type: "error", code: "session_write", message });
      options.onEvent?.({ type: "done", result });
      return result;
    }
  }

  async #runTurn(prompt: string, options: TurnOptions): Promise<TurnResult> {
    const { deps } = this;
    const { config } = deps;
    const { session } = options;
    const signal = options.signal ?? new AbortController().signal;
    const emit = options.onEvent ?? (() => {});
    const started = performance.now();
    const errors: TurnError[] = [];
    const records: ToolCallRecord[] = [];
    let usage: Usage | null = null;
    let content = "";
    let thinking = "";
    let status: TurnStatus | null = null;

    const fail = async (error: TurnError) => {
      errors.push(error);
      await session.appendError(error);
    };

    // The prompt is not acknowledged yet: its write may wait up to 25 ms to share the write of
    // whatever comes next (often the answer), and is awaited before the result is returned.
    const promptWritten = session.appendMessage({
      role: "user",
      content: prompt,
      timestamp: new Date().toISOString(),
    }, { deferMs: 25 });
    promptWritten.catch(() => {}); // awaited below; this only marks the rejection as handled
    emit({ type: "session", name: session.name });
    if (config.web_search && !signal.aborted) {
      const block = await webSearchBlock(
        prompt,
        deps,
        session,
        signal,
        (message) => emit({ type: "warning", message }),
      );
      if (block) {
        await session.appendMessage({
          role: "system",
          content: block,
          timestamp: new Date().toISOString(),
        });
      }
    }

    const system = await composeSystemMessages(config, deps.worktree, {
      typePrompt: deps.typePrompt,
      mode: deps.mode,
    });
    const tools = this.offeredTools();
    const available = tools.map((t) => t.name);
    const schemas = tools.map((t) => deps.registry.schemaOf(t));
    const ask = (request: AskRequest) => this.#ask(request, signal);

    for (let round = 1; status === null; round++) {
      if (round > MAX_ROUNDS) {
        await fail({
          code: "round_limit",
          message: `Stopped after ${MAX_ROUNDS} rounds of tool calls`,
        });
        status = "error";
        break;
      }
      const roundStart = performance.now();
      const messages: ChatMessage[] = buildContext(system, session.data.messages, session.live);
      const outcome = await streamRound(
        deps.client,
        {
          model: deps.model,
          messages,
          tools: schemas.length ? schemas : undefined,
          temperature: config.temperature,
          max_tokens: config.max_tokens,
          reasoning: config.reasoning,
        },
        signal,
        emit,
      );
      usage = addUsage(usage, outcome.usage);
      thinking += outcome.thinking;
      const calls = outcome.completed || outcome.finishReason === "tool_calls"
        ? outcome.toolCalls
        : completeCallsOnly(outcome.toolCalls);
      if (outcome.content || calls.length || outcome.thinking) {
        await session.appendMessage({
          role: "assistant",
          content: outcome.content,
          timestamp: new Date().toISOString(),
          model: deps.model,
          provider: deps.provider,
          duration: Math.round(performance.now() - roundStart) / 1000,
          thinking: outcome.thinking,
          reasoning: config.reasoning,
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(outcome.usage ? { usage: outcome.usage } : {}),
          finish_reason: outcome.finishReason,
          ...(outcome.completed ? {} : { partial: true }),
        });
      }
      if (outcome.content) content = content ? `${content}\n\n${outcome.content}` : outcome.content;

      if (signal.aborted) {
        status = "cancelled";
        break;
      }
      if (outcome.error && calls.length > 0) {
        // Tool calls that arrived before the stream broke still run; the loop continues.
        await fail(outcome.error);
      } else if (outcome.error) {
        await fail(outcome.error);
        if (records.length > 0) {
          emit({
            type: "warning",
            message: "Tool results are saved in the session; send a follow-up to retry",
          });
        }
        status = "error";
        break;
      }
      if (calls.length === 0) {
        if (outcome.finishReason === "length") {
          const message = config.max_tokens > 0
            ? `Answer cut off at the configured max_tokens cap (${config.max_tokens}); raise max_tokens, or set it to 0 to use the provider default`
            : "Answer cut off by the provider's default output limit (max_tokens is 0, so none was sent); set max_tokens to allow a longer answer";
          emit({ type: "warning", message });
          await fail({ code: "max_tokens", message, at: new Date().toISOString() });
          status = "truncated";
        } else {
          status = outcome.content.trim() ? "ok" : "empty";
        }
        break;
      }
      const env = { deps, session, signal, emit, available, ask };
      for (const call of calls.slice(0, MAX_CALLS_PER_ROUND)) {
        records.push((await executeToolCall(call, env)).record);
      }
      // Every call still needs an answer; these run nothing, so they can share one write.
      const refusal = `at most ${MAX_CALLS_PER_ROUND} tool calls run per round; ` +
        "repeat the calls you still need in your next reply";
      const refused = await Promise.all(
        calls.slice(MAX_CALLS_PER_ROUND).map((call) => executeToolCall(call, env, refusal)),
      );
      records.push(...refused.map((r) => r.record));
      if (signal.aborted) status = "cancelled";
    }

    const result: TurnResult = {
      content,
      thinking,
      tool_calls: records,
      errors,
      duration: Math.round(performance.now() - started) / 1000,
      usage,
      model: deps.model,
      provider: deps.provider,
      session: session.name,
      status: status ?? "error",
    };
    // Everything this turn appended is durable before anyone sees the result.
    await promptWritten;
    await session.sync();
    emit({ type: "done", result });
    return result;
  }

  /** The `ask` channel: lead for sub-agents (falls back to human), human, or no one. */
  async #ask(request: AskRequest, signal: AbortSignal): Promise<string | null> {
    if (request.target === "lead" && this.deps.lead) {
      const answer = await askLead(this.deps.lead, request, signal);
      if (answer !== null) return answer;
    }
    return this.deps.askHuman ? await this.deps.askHuman(request, signal) : null;
  }
}

/** Filesystem failures (ENOSPC, EACCES, ENOTDIR, ...) and unreadable session files. */
function isStorageError(err: unknown): boolean {
  if (err instanceof SessionError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return Object.values(Deno.errors).some((type) => err instanceof type) ||
    (typeof code === "string" && /^E[A-Z]+$/.test(code));
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
