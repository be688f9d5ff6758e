/**
 * The attempts of one job run: the task file re-read, one session for all of them, each attempt a
 * fresh headless engine (through an injectable attempt runner) with a per-attempt timeout, and
 * exponential backoff between attempts. Timeout and backoff wait on the run's clock.
 */
import { headlessInfo } from "../runtime/headless.ts";
import type {
  EngineEvent,
  EngineOverrides,
  HeadlessInfo,
  Session,
  TurnResult,
} from "../runtime/mod.ts";
import { readRunMemory, type SummaryModel } from "../runtime/run_memory.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { withSessionHooks } from "../runtime/session_hooks.ts";
import { compileAnswerSchema } from "../runtime/structured.ts";
import type { Clock } from "../util/time.ts";
import { jobOverrides } from "./overrides.ts";
import { RegisterError, updateJob } from "./register.ts";
import type { Job } from "./schema.ts";
import { endAttempt, type RunOutcome, startAttempt } from "./states.ts";
import { memoryPath, readTaskFile, TaskFileOutsideError } from "./task.ts";

/** Backoff before attempt n+1 is BACKOFF_BASE_MS * 2^(n-1), at most BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 5 * 60_000;

/** What one attempt gets: the job, the engine overrides, the run's session, its stop signal. */
export interface AttemptRequest {
  job: Job;
  runtime: Runtime;
  overrides: EngineOverrides;
  session: Session;
  prompt: string;
  /** Aborts on the attempt's timeout and when the run is stopped. */
  signal: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** The attempt's engine is built: what it runs with (`--output stream-json`'s init line). */
  onReady?: (info: HeadlessInfo) => void;
}

/** How an attempt's turn ended, and the model that summarizes the run (null: the fallback). */
export interface AttemptResult {
  result: TurnResult;
  summary: SummaryModel | null;
}

/**
 * Runs one attempt. Throwing means the engine could not be built (a refused model, an unknown
 * provider): the run fails at once, without retries.
 */
export type AttemptRunner = (request: AttemptRequest) => Promise<AttemptResult>;

/** The real attempt: a fresh headless engine from the runtime, one turn in the run's session. */
export const engineAttempt: AttemptRunner = async (request) => {
  const { runtime, overrides, session, prompt, signal, onEvent } = request;
  const engine = await runtime.engine({ ...overrides, headless: true, session });
  const summary: SummaryModel = {
    client: engine.deps.client,
    model: engine.deps.model,
    reasoning: engine.deps.config.reasoning,
  };
  // A job's json_schema was checked when it was added; one edited badly fails the run here.
  const structured = request.job.json_schema === undefined ? undefined : {
    schema: await compileAnswerSchema(request.job.json_schema, "the job's json_schema"),
    retries: request.job.json_retries,
  };
  request.onReady?.(headlessInfo(runtime, engine));
  const result = await engine.runTurn(prompt, { session, signal, onEvent, structured });
  return { result, summary };
};

/** What the attempts of one run share. */
export interface RunContext {
  worktree: string;
  job: Job;
  run: number;
  by: "daemon" | "manual";
  sessionName: string;
  runtime: () => Promise<Runtime>;
  /** One attempt, whatever `retries` says. */
  noRetry: boolean;
  clock: Clock;
  attempt: AttemptRunner;
  onEvent?: (event: EngineEvent) => void;
  observer?: RunObserver;
  log: (line: string) => void;
  /** Aborts when the run is stopped (the caller's signal, a disable or remove of the job). */
  stop: AbortSignal;
}

/** What a front-end learns of each attempt as it runs (`svc jobs run --output stream-json`). */
export interface RunObserver {
  /** The attempt's engine is built: what it runs with, in the run's session. */
  ready?(attempt: { attempt: number; total: number; session: string; info: HeadlessInfo }): void;
  /** The attempt's turn ended (not called when its engine could not be built). */
  ended?(attempt: { attempt: number; total: number; result: TurnResult }): void;
}

/**
 * A run's outcome, its attempt count, the model that summarizes it and the last turn's stop
 * reason when it was not a plain answer (`max_turns` for a run a limit truncated).
 */
export type Attempted = RunOutcome & {
  attempts: number;
  summary: SummaryModel | null;
  reason?: TurnResult["reason"];
};

/** What every attempt of a run uses, built once. */
interface Prepared {
  runtime: Runtime;
  session: Session;
  /** The job's named session existed before this run (SessionStart's source is `resume`). */
  resumed: boolean;
  overrides: EngineOverrides;
  prompt: string;
}

/**
 * The attempts of one run between the SessionStart and SessionEnd hooks of its session; the
 * outcome of the last.
 */
export async function attempts(ctx: RunContext): Promise<Attempted> {
  const ready = await prepare(ctx);
  if ("error" in ready) return await failed(ctx, 1, ready.error, null);
  return await withSessionHooks(ready.runtime, ready.session, {
    resumed: ready.resumed,
    warn: (message) => ctx.log(`job ${ctx.job.name}: warning: ${message}`),
    signal: ctx.stop,
    run: () => attemptAll(ctx, ready),
  });
}

async function attemptAll(ctx: RunContext, ready: Prepared): Promise<Attempted> {
  const { job, run, by, clock, stop } = ctx;
  const total = ctx.noRetry ? 1 : job.retries + 1;
  let last: Attempted | null = null;
  for (let attempt = 1; attempt <= total; attempt++) {
    if (attempt > 1) {
      const wait = Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 2), BACKOFF_MAX_MS);
      const shown = (wait / 1000).toFixed(1);
      ctx.log(`job ${job.name}: retrying in ${shown} s (attempt ${attempt} of ${total})`);
      await clock.sleep(wait, stop, "backoff");
      if (stop.aborted) break;
      const session = ready.session.name;
      await record(
        ctx,
        (j) => startAttempt(j, { run, attempt, now: new Date(clock.now()), by, session }),
      );
    }
    const tried = await attemptOnce(ctx, ready, attempt, total);
    if ("fatal" in tried) return tried.fatal;
    last = tried;
    if (last.verified || stop.aborted) break;
  }
  return last ?? {
    verified: false,
    timedOut: false,
    output: "",
    error: "cancelled: the run was stopped",
    session: ready.session.name,
    attempts: 0,
    summary: null,
  };
}

/** The task file (re-read every run), the runtime, the run's session and the overrides. */
async function prepare(ctx: RunContext): Promise<Prepared | { error: string }> {
  const { worktree, job } = ctx;
  try {
    const runtime = await ctx.runtime();
    // Re-read at the start of every run; a deleted one fails the run (SPEC Errors). An untrusted
    // worktree's task file is read only inside it, as its catalog files and skills are.
    const task = await readTaskFile(worktree, job.task_file, { confine: !runtime.trusted })
      .catch((err) => {
        if (err instanceof TaskFileOutsideError) throw err;
        return null;
      });
    if (task === null) return { error: "task file not found" };
    const resumed = Boolean(job.session) && await runtime.sessions.exists(job.session!);
    const session = job.session
      ? await runtime.sessions.openOrCreate(job.session)
      : runtime.sessions.create(ctx.sessionName);
    const memory = await readRunMemory(memoryPath(worktree, job.name));
    const overrides = await jobOverrides(runtime, { job, task, memory });
    const prompt = job.prompt?.trim() ||
      `Run the job "${job.name}" now, as its job task describes.`;
    return { runtime, session, resumed, overrides, prompt };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** One attempt under its timeout, recorded in the register; `fatal` when it cannot be retried. */
async function attemptOnce(
  ctx: RunContext,
  ready: Prepared,
  attempt: number,
  total: number,
): Promise<Attempted | { fatal: Attempted }> {
  const { job, stop } = ctx;
  const { session } = ready;
  const timeout = new AbortController();
  const ended = new AbortController();
  ctx.clock.sleep(job.timeout * 1000, ended.signal, "timeout").then((due) =>
    due && timeout.abort()
  );
  let tried: AttemptResult;
  try {
    tried = await ctx.attempt({
      job,
      runtime: ready.runtime,
      overrides: ready.overrides,
      session,
      prompt: ready.prompt,
      signal: AbortSignal.any([stop, timeout.signal]),
      onEvent: ctx.onEvent,
      onReady: (info) => ctx.observer?.ready?.({ attempt, total, session: session.name, info }),
    });
  } catch (err) {
    // The engine could not be built (a refused model, an unknown provider): retrying cannot help.
    return { fatal: await failed(ctx, attempt, (err as Error).message, session.name) };
  } finally {
    ended.abort();
  }
  const { result, summary } = tried;
  ctx.observer?.ended?.({ attempt, total, result });
  const reason = result.reason === "answered" ? undefined : result.reason;
  const timedOut = timeout.signal.aborted && !stop.aborted;
  const verified = result.status === "ok" || result.status === "truncated";
  const error = verified
    ? null
    : timedOut
    ? `timeout: the attempt ran over ${job.timeout} s`
    : stop.aborted
    ? "cancelled: the run was stopped"
    : result.errors.at(-1)?.message ?? `the run ended with status ${result.status}`;
  const status = timedOut ? "timeout" : result.status;
  const sessionName = result.session || session.name;
  // A structured answer is kept as its JSON (compact).
  const output = result.structured_output !== undefined
    ? JSON.stringify(result.structured_output)
    : result.content;
  await record(
    ctx,
    (j) =>
      endAttempt(j, {
        run: ctx.run,
        attempt,
        now: new Date(ctx.clock.now()),
        ended: {
          status,
          session: sessionName,
          output,
          ...(error ? { error } : {}),
          ...(reason ? { reason } : {}),
        },
      }),
  );
  const why = error ?? (result.status === "truncated" ? reason : undefined);
  ctx.log(`job ${job.name}: attempt ${attempt} of ${total}: ${status}${why ? ` (${why})` : ""}`);
  return {
    verified,
    timedOut,
    output,
    error,
    session: sessionName,
    attempts: attempt,
    summary,
    ...(reason ? { reason } : {}),
  };
}

/** The run fails at attempt `attempt` without an answer. */
async function failed(
  ctx: RunContext,
  attempt: number,
  error: string,
  session: string | null,
): Promise<Attempted> {
  await record(
    ctx,
    (j) =>
      endAttempt(j, {
        run: ctx.run,
        attempt,
        now: new Date(ctx.clock.now()),
        ended: {
          status: "error",
          session,
          error,
        },
      }),
  );
  ctx.log(`job ${ctx.job.name}: run ${ctx.run} failed: ${error}`);
  return {
    verified: false,
    timedOut: false,
    output: "",
    error,
    session,
    attempts: attempt,
    summary: null,
  };
}

/** Applies a change to the job in the register; a job removed meanwhile is left alone. */
async function record(ctx: RunContext, change: (job: Job) => void): Promise<void> {
  try {
    await updateJob({ worktree: ctx.worktree, name: ctx.job.name }, change);
  } catch (err) {
    if (!(err instanceof RegisterError)) throw err;
  }
}
