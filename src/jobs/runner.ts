/**
 * One run of a job: checked and started under the register's lock, attempts outside it (each a
 * fresh headless engine from the runtime, with a per-attempt timeout and exponential backoff
 * between attempts, all in the run's one session), then the run memory and the finished state.
 * The daemon and `svc jobs run` both run jobs through `runJob`.
 */
import type { Catalog } from "../catalog/types.ts";
import type { ToolPermission } from "../config/schema.ts";
import { tightenPermissions } from "../config/trust.ts";
import { sleep } from "../util/time.ts";
import type { EngineOverrides } from "../engine/deps.ts";
import type { EngineEvent, TurnResult } from "../engine/events.ts";
import {
  oneLine,
  readRunMemory,
  summarizeRun,
  type SummaryModel,
  writeRunMemory,
} from "../engine/run_memory.ts";
import { typeOverrides } from "../engine/sub_agent.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Session } from "../session/session.ts";
import { jobSessionName } from "../session/naming.ts";
import { acquireDaemonLock } from "../util/daemon_lock.ts";
import { approvalOf, consumeOnce, grant as grantApproval, loadGrants } from "./approvals.ts";
import { readRegister, RegisterError, registerPath, updateJob } from "./register.ts";
import type { Job } from "./schema.ts";
import {
  authorized,
  endAttempt,
  finishRun,
  isDue,
  type RunOutcome,
  startAttempt,
  startRun,
} from "./states.ts";
import { jobPrompt, memoryPath, readTaskFile, runLockPath } from "./task.ts";

/** Backoff before attempt n+1 is BACKOFF_BASE_MS * 2^(n-1), at most BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 5 * 60_000;

/** How a run is started. */
export interface RunOptions {
  worktree: string;
  name: string;
  /** `daemon`: only when due and authorized (an armed grant is used up); `manual`: always. */
  by: "daemon" | "manual";
  /** The loaded runtime the engines come from (the daemon keeps one). */
  runtime: () => Promise<Runtime>;
  /** One attempt, whatever `retries` says (`jobs run --no-retry`). */
  noRetry?: boolean;
  /** Aborting cancels the running attempt (saved as cancelled) and skips the rest. */
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** Progress lines (attempt started, retrying, memory written). */
  log?: (line: string) => void;
  clock?: () => Date;
  backoffBaseMs?: number;
}

/** How a run went. */
export interface RunReport extends RunOutcome {
  name: string;
  run: number;
  /** The job's state after the run. */
  state: Job["state"];
  attempts: number;
  /** The memory file written, or null. */
  memory: string | null;
}

/** A run that did not start: why (not due, not approved, running elsewhere, no such job). */
export interface RunRefused {
  refused: string;
}

/**
 * Runs the job once. Returns a RunRefused when it may not start now; never throws for what a run
 * meets (a missing task file, a refused model, a failing provider): those fail the run.
 */
export async function runJob(options: RunOptions): Promise<RunReport | RunRefused> {
  const { worktree, name, by } = options;
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? (() => {});
  const stop = options.signal ?? new AbortController().signal;
  const taken = await acquireDaemonLock(runLockPath(worktree, name), `svc jobs ${by} run`);
  if (!taken.lock) {
    const holder = taken.heldBy
      ? ` (pid ${taken.heldBy.pid}, since ${taken.heldBy.started_at})`
      : "";
    return { refused: `job "${name}" is executing already${holder}` };
  }
  try {
    return await runLocked(options, clock, log, stop);
  } finally {
    taken.lock.release();
  }
}

async function runLocked(
  options: RunOptions,
  clock: () => Date,
  log: (line: string) => void,
  stop: AbortSignal,
): Promise<RunReport | RunRefused> {
  const { worktree, name, by } = options;
  const grants = await loadGrants(worktree);
  const preview = (await readRegister(worktree)).jobs.find((j) => j.name === name);
  if (!preview) return { refused: `no job named "${name}"` };
  const sessionName = preview.session ?? await freeSessionName(worktree, name, clock());
  // Checked again under the register's lock: the register may have changed meanwhile.
  let started: { job: Job; run: number } | RunRefused;
  try {
    started = await updateJob(worktree, name, async (job) => {
      const now = clock();
      const approval = await approvalOf(job, worktree, grants.get(name));
      if (by === "daemon") {
        if (!isDue(job, approval, now)) {
          return { refused: `job "${name}" is not due or not approved` };
        }
        if (approval.kind === "armed") {
          // Exactly one run per approve: the grant is used up before anything runs.
          if (!await consumeOnce(worktree, name, approval.grant.hash)) {
            return { refused: `job "${name}": its one-run approval was used already` };
          }
        }
      } else if (!authorized(job, approval) && !job.require_approval) {
        // A manual run overrides the gate and approves a proposed job (SPEC's table).
        await grantApproval(worktree, job, { once: false, now });
      } else if (approval.kind === "armed") {
        await consumeOnce(worktree, name, approval.grant.hash);
      }
      const run = startRun(job, now, by, sessionName);
      return { job: structuredClone(job), run };
    });
  } catch (err) {
    if (err instanceof RegisterError) return { refused: err.message };
    throw err;
  }
  if ("refused" in started) return started;
  const { job, run } = started;
  log(`job ${name}: run ${run} started (session ${sessionName})`);
  const stopped = watchForStop(worktree, name, log);
  const halt = AbortSignal.any([stop, stopped.signal]);
  let outcome: Attempted;
  try {
    outcome = await attempts(options, job, run, sessionName, clock, log, halt);
  } finally {
    stopped.close();
  }
  const memory = await remember(options, job, outcome, clock(), stop, log);
  let state: Job["state"] = outcome.verified ? "verified" : outcome.timedOut ? "timeout" : "failed";
  try {
    state = await updateJob(worktree, name, (current) => {
      finishRun(current, outcome, clock());
      return current.state;
    });
  } catch (err) {
    // Removed while it ran: the run's outcome is in its session and memory only.
    if (!(err instanceof RegisterError)) throw err;
    log(`job ${name}: not in the register any more; its outcome was not recorded there`);
  }
  return { ...outcome, name, run, state, attempts: outcome.attempts, memory };
}

/** `job_<YYYYMMDD>_<HHMMSS>_<name>`, `_2`, `_3` when a session of that name exists. */
async function freeSessionName(worktree: string, name: string, now: Date): Promise<string> {
  const base = jobSessionName(name, now);
  const dir = `${worktree}/.svc/sessions`;
  for (let n = 1;; n++) {
    const candidate = n === 1 ? base : `${base}_${n}`;
    try {
      await Deno.lstat(`${dir}/${candidate}.json`);
    } catch {
      return candidate;
    }
  }
}

type Attempted = RunOutcome & { attempts: number; summary: SummaryModel | null };

/** The attempts of one run; the outcome of the last. */
async function attempts(
  options: RunOptions,
  job: Job,
  run: number,
  sessionName: string,
  clock: () => Date,
  log: (line: string) => void,
  stop: AbortSignal,
): Promise<Attempted> {
  const { worktree, name, by } = options;
  const fail = async (attempt: number, error: string, session: string | null) => {
    await record(
      worktree,
      name,
      (j) => endAttempt(j, run, attempt, clock(), { status: "error", session, error }),
    );
    log(`job ${name}: run ${run} failed: ${error}`);
    return {
      verified: false,
      timedOut: false,
      output: "",
      error,
      session,
      attempts: attempt,
      summary: null,
    };
  };
  // Re-read at the start of every run; a deleted one fails the run (SPEC Errors).
  const task = await readTaskFile(worktree, job.task_file).catch(() => null);
  if (task === null) return await fail(1, "task file not found", null);
  let runtime: Runtime;
  let session: Session;
  let overrides: EngineOverrides;
  try {
    runtime = await options.runtime();
    session = job.session
      ? await runtime.sessions.openOrCreate(job.session)
      : runtime.sessions.create(sessionName);
    const memory = await readRunMemory(memoryPath(worktree, name));
    overrides = await jobOverrides(runtime, job, task, memory);
  } catch (err) {
    return await fail(1, (err as Error).message, null);
  }
  const prompt = job.prompt?.trim() || `Run the job "${name}" now, as its job task describes.`;
  const total = options.noRetry ? 1 : job.retries + 1;
  const base = options.backoffBaseMs ?? BACKOFF_BASE_MS;
  let last: Attempted | null = null;
  for (let attempt = 1; attempt <= total; attempt++) {
    if (attempt > 1) {
      const wait = Math.min(base * 2 ** (attempt - 2), BACKOFF_MAX_MS);
      log(
        `job ${name}: retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt} of ${total})`,
      );
      await sleep(wait / 1000, stop);
      if (stop.aborted) break;
      await record(worktree, name, (j) => startAttempt(j, run, attempt, clock(), by, session.name));
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), job.timeout * 1000);
    let result: TurnResult;
    let summary: SummaryModel | null = null;
    try {
      const engine = await runtime.engine({ ...overrides, headless: true, session });
      summary = {
        client: engine.deps.client,
        model: engine.deps.model,
        reasoning: engine.deps.config.reasoning,
      };
      result = await engine.runTurn(prompt, {
        session,
        signal: AbortSignal.any([stop, timeout.signal]),
        onEvent: options.onEvent,
      });
    } catch (err) {
      clearTimeout(timer);
      // The engine could not be built (a refused model, an unknown provider): retrying cannot help.
      return await fail(attempt, (err as Error).message, session.name);
    } finally {
      clearTimeout(timer);
    }
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
    await record(worktree, name, (j) =>
      endAttempt(j, run, attempt, clock(), {
        status,
        session: result.session || session.name,
        output: result.content,
        ...(error ? { error } : {}),
      }));
    log(`job ${name}: attempt ${attempt} of ${total}: ${status}${error ? ` (${error})` : ""}`);
    last = {
      verified,
      timedOut,
      output: result.content,
      error,
      session: result.session || session.name,
      attempts: attempt,
      summary,
    };
    if (verified || stop.aborted) break;
  }
  return last ?? {
    verified: false,
    timedOut: false,
    output: "",
    error: "cancelled: the run was stopped",
    session: session.name,
    attempts: 0,
    summary: null,
  };
}

/** Applies a change to the job in the register; a job removed meanwhile is left alone. */
async function record(worktree: string, name: string, change: (job: Job) => void): Promise<void> {
  try {
    await updateJob(worktree, name, change);
  } catch (err) {
    if (!(err instanceof RegisterError)) throw err;
  }
}

/**
 * The engine overrides of a job: its agent type through the same merge sub-agents use, then its
 * own mode, provider, model, tools_deny and tool_permission, and the composed system prompt. In
 * an untrusted worktree the job's permissions and mode can only tighten what is in force.
 */
export async function jobOverrides(
  runtime: Runtime,
  job: Job,
  task: string,
  memory: string,
): Promise<EngineOverrides> {
  let catalog: Catalog | undefined;
  let typed: EngineOverrides = {};
  if (job.type) {
    catalog = await runtime.catalog();
    const type = catalog.types.get(job.type);
    if (!type) {
      const known = [...catalog.types.keys()].sort().join(", ") || "none";
      throw new Error(`unknown type "${job.type}"; available types: ${known}`);
    }
    typed = typeOverrides(runtime.config.tool_permission, type, catalog, 0);
  }
  const config = runtime.config;
  const basePermissions: ToolPermission = { ...config.tool_permission, ...typed.tool_permission };
  let permissions = typed.tool_permission;
  if (job.tool_permission) {
    if (runtime.trusted) permissions = { ...basePermissions, ...job.tool_permission };
    else {
      const { bash_allow: _ignored, ...categories } = job.tool_permission;
      permissions = tightenPermissions(basePermissions, categories);
    }
  }
  const mode = job.mode === "build" && config.mode === "plan" && !runtime.trusted
    ? undefined
    : job.mode;
  const deny = [...(typed["tools.deny"] ?? []), ...(job.tools_deny ?? [])];
  const prompt = jobPrompt({
    worktree: runtime.worktree,
    typePrompt: typed.typePrompt,
    task,
    systemPrompt: job.system_prompt ?? config.system_prompt ?? undefined,
    memory,
  });
  return {
    typePrompt: prompt.lead,
    ...(prompt.tail !== undefined ? { system_prompt: prompt.tail } : {}),
    ...(mode ? { mode } : {}),
    ...(permissions ? { tool_permission: permissions } : {}),
    ...(deny.length ? { "tools.deny": [...new Set(deny)] } : {}),
    ...(job.provider ? { provider: job.provider, modelFrom: "flag" as const } : {}),
    ...(job.model
      ? { model: job.model, modelFrom: "flag" as const }
      : typed.model
      ? { model: typed.model, modelFrom: "type" as const }
      : {}),
    approveModel: job.approve_model,
    headless: true,
  };
}

/** Writes the run memory (the model's summary, or the fallback entry); returns its path or null. */
async function remember(
  options: RunOptions,
  job: Job,
  outcome: Attempted,
  now: Date,
  stop: AbortSignal,
  log: (line: string) => void,
): Promise<string | null> {
  const path = memoryPath(options.worktree, job.name);
  const memory = await readRunMemory(path);
  const verdict = outcome.verified ? "verified" : outcome.timedOut ? "timeout" : "failed";
  const detail = oneLine(outcome.verified ? outcome.output : outcome.error ?? outcome.output);
  const fallback = `Run ${now.toISOString()}: ${outcome.verified ? "verified" : "failed"}${
    detail ? `: ${detail}` : ""
  }`;
  const { text, summarized } = await summarizeRun(outcome.summary, {
    keeper: "a recurring job",
    header: `Job: ${job.name}\nRun: ${now.toISOString()}, ${verdict}`,
    memory,
    run: outcome.verified
      ? `Final answer:\n${outcome.output.slice(0, 8000)}`
      : `Failed: ${outcome.error ?? "no answer"}\n\n${outcome.output.slice(0, 8000)}`,
    fallback,
  }, stop);
  try {
    const runtime = await options.runtime().catch(() => null);
    await writeRunMemory(path, text, runtime?.trusted ? undefined : options.worktree);
    log(`job ${job.name}: memory ${summarized ? "summarized" : "written (fallback)"} to ${path}`);
    return path;
  } catch (err) {
    log(`job ${job.name}: could not write the memory ${path}: ${(err as Error).message}`);
    return null;
  }
}

/** How often a running job looks whether `svc jobs stop` (or disable, or remove) reached it. */
const STOP_CHECK_MS = 1000;

/**
 * Aborts when the job is disabled (`svc jobs stop` or `disable`) or removed while it runs, from
 * this process or another: the register is looked at once a second, and read only when its file
 * changed. The attempt in progress ends as cancelled and is saved.
 */
function watchForStop(
  worktree: string,
  name: string,
  log: (line: string) => void,
): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const path = registerPath(worktree);
  const stamp = () => {
    try {
      const info = Deno.statSync(path);
      return `${info.mtime?.getTime()}:${info.size}:${info.ino}`;
    } catch {
      return "-";
    }
  };
  let seen = stamp();
  let busy = false;
  const timer = setInterval(async () => {
    const now = stamp();
    if (busy || now === seen) return;
    busy = true;
    seen = now;
    try {
      const job = (await readRegister(worktree)).jobs.find((j) => j.name === name);
      if (!job || !job.enabled) {
        log(`job ${name}: ${job ? "disabled" : "removed"} while running: cancelling the attempt`);
        controller.abort();
      }
    } catch {
      // a register that does not read now is looked at again at the next change
    } finally {
      busy = false;
    }
  }, STOP_CHECK_MS);
  return {
    signal: controller.signal,
    close: () => clearInterval(timer),
  };
}
