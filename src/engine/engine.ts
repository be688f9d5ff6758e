import type { SessionLog } from "../session/log.ts";
import { SessionError } from "../session/session.ts";
import { ApprovalMemory } from "../tool/approval.ts";
import { offeredTools } from "../tool/judge.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { AskRequest, Tool, ToolImage, ToolOutput } from "../tool/types.ts";
import type { EngineEvent, TurnResult } from "./events.ts";
import type { EngineDeps, EngineOverrides } from "./deps.ts";
import { askLead } from "./ask.ts";
import { type CompactionResult, compactSession } from "./compaction.ts";
import { Turn } from "./turn.ts";
import { preCompactHooks } from "./turn_hooks.ts";
import type { StructuredAnswer } from "./structured.ts";
import { engineInvokeEnv, toolEndEvent } from "./calls.ts";
import { type Invocation, invokeTool } from "../tool/invoke.ts";
import { delegate } from "./delegate.ts";
import { type ImageInput, imageInput, imagesRefused } from "./image_input.ts";
import { refusedTeamRun, runTeam, type TeamRun, type TeamRunOptions } from "./team.ts";

export { MAX_ROUNDS } from "./turn.ts";
export { MAX_CALLS_PER_ROUND } from "./calls.ts";

/** Builds engines; the runtime layer implements it (engines derive children through it). */
export interface EngineFactory {
  /** An engine with `overrides` over `parent`'s settings, or over the runtime's own. */
  engine(overrides?: EngineOverrides, parent?: Engine): Promise<Engine>;
}

export interface TurnOptions {
  /** Where the turn is logged; default the engine's own session. */
  session?: SessionLog;
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** The final answer must be a JSON value valid against this schema (structured.ts). */
  structured?: StructuredAnswer;
  /**
   * Images sent with the prompt (checked: src/tool/images.ts). A model that does not take images
   * ends the turn `error` with code `images_not_accepted` before anything is sent.
   */
  images?: readonly ToolImage[];
}

/**
 * The agent loop: one engine, driven by every front-end and built only by the runtime layer.
 * Touches no terminal or socket.
 */
export class Engine {
  /** The `always` approvals of each session this engine ran turns in. */
  #memories = new WeakMap<SessionLog, ApprovalMemory>();
  /** Sub-agents run one at a time: each waits for the one before it. */
  #agents: Promise<unknown> = Promise.resolve();

  constructor(readonly deps: EngineDeps, readonly factory?: EngineFactory) {}

  /** This turn's tools: the base registry plus every source's tools at this moment. */
  toolView(): ToolRegistry {
    const extra = this.deps.tools.sources.flatMap((source) => source.tools());
    return extra.length ? this.deps.tools.base.with(extra) : this.deps.tools.base;
  }

  /** Tools advertised to the model: policy-filtered, canonical names only. */
  offeredTools(view: ToolRegistry = this.toolView()): Tool[] {
    return offeredTools(view, this.deps);
  }

  /** The remembered `always` answers of a session (kept while the session object lives). */
  approvals(session: SessionLog): ApprovalMemory {
    let memory = this.#memories.get(session);
    if (!memory) this.#memories.set(session, memory = new ApprovalMemory());
    return memory;
  }

  /**
   * Compacts a session's context with this engine's model (`compact_keep` messages kept), after
   * the PreCompact hooks (`trigger` default manual), which may block it; their warnings and the
   * `compaction` event go to `onEvent`. An automatic one says why (`reason`) and how full the
   * context was (`context`); the summary record stores both.
   */
  async compact(
    session: SessionLog,
    signal?: AbortSignal,
    options: {
      trigger?: "manual" | "auto";
      onEvent?: (event: EngineEvent) => void;
      reason?: "threshold" | "overflow";
      context?: { estimated_tokens: number; window: number };
      /** The summary request's transcript is cut to this many characters. */
      maxChars?: number;
    } = {},
  ): Promise<CompactionResult> {
    const { client, model, config } = this.deps;
    const trigger = options.trigger ?? "manual";
    const emit = options.onEvent ?? (() => {});
    const blocked = await preCompactHooks(this.deps, {
      session,
      signal: signal ?? new AbortController().signal,
      emit,
      trigger,
    });
    if (blocked !== undefined) {
      return { ok: false, message: `blocked by a PreCompact hook: ${blocked}` };
    }
    const about = { ...(options.reason ? { reason: options.reason } : {}), ...options.context };
    const result = await compactSession(session, client, {
      model,
      keep: config.compact_keep,
      reasoning: config.reasoning,
      signal,
      record: { trigger, ...about },
      maxChars: options.maxChars,
    });
    if (result.ok) {
      emit({
        type: "compaction",
        trigger,
        summarized: result.summarized,
        kept: result.kept,
        ...about,
      });
    }
    return result;
  }

  /** A child engine with `overrides` over this one's settings (delegation, team stages). */
  derive(overrides: EngineOverrides): Promise<Engine> {
    if (!this.factory) throw new Error("This engine was not built by a runtime");
    return this.factory.engine(overrides, this);
  }

  /**
   * Runs one turn to completion; the result is also reflected in the session log. A session
   * that cannot be written (full disk, unwritable `.svc/`) ends the turn with status `error` and
   * a `session_write` error instead of throwing. The result then holds what the turn produced,
   * the appends that failed are not in the session (not now, not later), and the error itself is
   * stored with the next write that succeeds, so the file tells what the client was told.
   */
  async runTurn(prompt: string, options: TurnOptions = {}): Promise<TurnResult> {
    const session = options.session ?? this.deps.session;
    if (!session) throw new Error("runTurn needs a session: the engine has none of its own");
    const emit = options.onEvent ?? (() => {});
    const signal = options.signal ?? new AbortController().signal;
    const turn = new Turn(this, session, signal, emit);
    try {
      return await turn.run(prompt, {
        ask: (request) => this.#ask(request, signal),
        delegate: (type, task) => this.delegate(type, task, { session, signal, onEvent: emit }),
        structured: options.structured,
        images: options.images,
      });
    } catch (err) {
      if (!isStorageError(err)) throw err;
      const where = session.path ?? "memory";
      const message =
        `Could not write the session ${session.name} (${where}): ${
          (err as Error).message
        }; what this turn produced since its last saved message is in this result only. Free ` +
        "space or fix the folder, then send the prompt again";
      const error = { code: "session_write", message, at: new Date().toISOString() };
      // Kept queued until a write succeeds; sync then also clears the failure it reported.
      session.appendError(error, { retry: true }).catch(() => {});
      await session.sync().catch(() => {});
      const result: TurnResult = { ...turn.result("error", [error]), reason: "session_write" };
      emit({ type: "error", code: "session_write", message });
      emit({ type: "done", result });
      return result;
    }
  }

  /**
   * Whether this engine's model takes images (models.json's `images`, else what the backend
   * reports, else no), for a front-end to say so before a prompt with images is sent.
   */
  imageInput(): Promise<ImageInput> {
    return imageInput(this.deps);
  }

  /**
   * Why `images` cannot go with a prompt to this engine's model (too many, or the model takes
   * none), in the words the turn itself would refuse them with; null when they can (and at once
   * for none). Front-ends ask before anything runs: nothing sent, no hook, no session record.
   */
  async refuseImages(images: readonly ToolImage[]): Promise<string | null> {
    return images.length ? await imagesRefused(this.deps, images) : null;
  }

  /**
   * Runs one tool call typed by the user (the REPL's `/tool <name> <json-args>`) through the one
   * invocation path, exactly as a model's call in `options.session`: the same offered tools,
   * policy, approver and remembered `always` answers. The audit record lands in the session's
   * `permissions`; the result is returned and not added to the model's context.
   */
  async runTool(name: string, args: string, options: TurnOptions = {}): Promise<Invocation> {
    const session = options.session ?? this.deps.session;
    if (!session) throw new Error("runTool needs a session: the engine has none of its own");
    const emit = options.onEvent ?? (() => {});
    const signal = options.signal ?? new AbortController().signal;
    const view = this.toolView();
    const env = {
      deps: this.deps,
      session,
      signal,
      emit,
      view,
      offered: this.offeredTools(view).map((t) => t.name),
      memory: this.approvals(session),
      ask: (request: AskRequest) => this.#ask(request, signal),
      delegate: (type: string, task: string) =>
        this.delegate(type, task, { session, signal, onEvent: emit }),
    };
    const id = `user_${crypto.randomUUID().slice(0, 8)}`;
    return await invokeTool({ id, name, arguments: args }, {
      ...engineInvokeEnv(env, (inv) => session.appendPermission(inv.audit)),
      onStart: (tool, args) =>
        emit({
          type: "tool_start",
          call: { id, type: "function", function: { name, arguments: JSON.stringify(args) } },
          name: tool,
          args,
        }),
      onEnd: (inv) => emit(toolEndEvent(inv)),
    });
  }

  /**
   * Runs `task` as a sub-agent of agent type `type`, in a session linked to `options.session`;
   * resolves with the `delegate` tool result. One sub-agent at a time per engine: a second call
   * waits for the first (and does not start if its turn was cancelled meanwhile).
   */
  delegate(
    type: string,
    task: string,
    options: { session: SessionLog; signal: AbortSignal; onEvent?: (event: EngineEvent) => void },
  ): Promise<ToolOutput> {
    return this.#oneAtATime(() => {
      if (options.signal.aborted) return Promise.resolve({ content: "[cancelled]", ok: false });
      return delegate(this, type, {
        task,
        session: options.session,
        signal: options.signal,
        emit: options.onEvent ?? (() => {}),
      });
    });
  }

  /**
   * Runs the team named `name` on `task` (stages in order, then the team memory); an unknown
   * team ends with status `error` and an error listing the known teams.
   */
  runTeam(name: string, task: string, options: TeamRunOptions): Promise<TeamRun> {
    return this.#oneAtATime(async () => {
      const catalog = await this.deps.agents?.catalog();
      const team = catalog?.teams.get(name);
      if (!catalog || !team) {
        const known = [...(catalog?.teams.keys() ?? [])].sort().join(", ") || "none";
        const message = `unknown team "${name}"; available teams: ${known}`;
        options.onEvent?.({ type: "error", code: "unknown_team", message });
        return refusedTeamRun(this, {
          team: name,
          session: options.session,
          why: { code: "unknown_team", message },
        });
      }
      return await runTeam(this, team, { ...options, task, catalog });
    });
  }

  #oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#agents.then(fn, fn);
    this.#agents = run.catch(() => {});
    return run;
  }

  /** The `ask` channel: lead for sub-agents (falls back to human), human, or no one. */
  async #ask(request: AskRequest, signal: AbortSignal): Promise<string | null> {
    if (request.target === "lead" && this.deps.lead) {
      const answer = await askLead(this.deps.lead, request, { signal });
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
