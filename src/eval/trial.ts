/**
 * One trial: a fixture's prompt run once by one model, in a fresh temporary worktree, with an
 * in-memory session, the eval permissions, a limit on tool rounds and a wall-clock timeout.
 * Nothing is written to the user's worktree or sessions; the temporary worktree is removed.
 */
import { dirname, join } from "../util/posix_path.ts";
import type { Config } from "../config/schema.ts";
import { ConfigSchema } from "../config/schema.ts";
import {
  type AppendOptions,
  type ConnectedModel,
  MemorySession,
  Runtime,
  type SessionData,
  type SessionMessage,
  type TurnError,
  type TurnResult,
  type TurnStatus,
} from "../runtime/mod.ts";
import type { Tool } from "../tool/types.ts";
import { readTextCapped } from "../util/fs.ts";
import type { Fixture } from "./fixture.ts";
import {
  countToolErrors,
  observeCalls,
  redundantCalls,
  type ToolErrorCounts,
  traceScores,
} from "./observe.ts";
import { verifyTrial } from "./verify.ts";

/** How a trial ended. Every trial is kept and counted under exactly one outcome. */
export const OUTCOMES = ["pass", "fail", "engine_error", "timeout", "turn_limit"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The eval defaults: reading, listing and the web are allowed; editing, commands and MCP are
 * denied, and so are delegation and `ask` (a trial has no sub-agent types and no one to answer).
 */
export const EVAL_PERMISSIONS = {
  read: "allow",
  list: "allow",
  web: "allow",
  edit: "deny",
  bash: "deny",
  mcp: "deny",
  delegate: "deny",
  ask: "deny",
} as const;

/**
 * The user config keys an eval keeps: the backend, how it is asked (temperature, max_tokens,
 * reasoning, stream settings) and the system prompt. Every other key takes its default, so a
 * fixture gives the same tools, caps and policy on every machine.
 */
export const KEPT_CONFIG_KEYS = [
  "provider",
  "base_url",
  "model",
  "temperature",
  "max_tokens",
  "reasoning",
  "system_prompt",
  "stream_retries",
  "stream_retry_delay",
  "stream_idle_timeout",
  "stream_ping_timeout",
] as const;

/** The config every trial starts from: the kept keys of `user`, defaults, eval permissions. */
export function evalConfig(user: Config): Config {
  const kept: Record<string, unknown> = {};
  for (const key of KEPT_CONFIG_KEYS) if (user[key] !== undefined) kept[key] = user[key];
  return ConfigSchema.parse({ ...kept, tool_permission: EVAL_PERMISSIONS });
}

/** What every trial of a run shares: the tools (from the loaded plugins) and the eval config. */
export interface EvalSetup {
  tools: readonly Tool[];
  /** Plugin of each tool, by tool name. */
  owners?: ReadonlyMap<string, string>;
  config: Config;
}

/** A model under evaluation: its resolved connection (approval gate already passed). */
export interface EvalTarget {
  connection: ConnectedModel;
}

/** Limits of one trial. */
export interface TrialLimits {
  /** Rounds of tool calls; a model asking for one more is stopped (outcome turn_limit). */
  maxRounds: number;
  /** Wall-clock limit of the turn (outcome timeout). */
  timeoutMs: number;
}

/** Token counts of a trial, as the provider reported them. */
export interface Tokens {
  prompt: number | null;
  completion: number | null;
  total: number | null;
}

/** The record of one trial in the report. */
export interface TrialRecord {
  /** 1-based repeat number. */
  trial: number;
  outcome: Outcome;
  /** Why it did not pass: the failed checks, or what stopped the turn. */
  failures: string[];
  /** The turn's status. */
  status: TurnStatus;
  /** Tool names in call order. */
  trace: string[];
  calls: number;
  /** Streamed rounds (requests to the provider). */
  rounds: number;
  /** Against the fixture's `expected` trace; null without one and for engine errors. */
  precision: number | null;
  recall: number | null;
  f1: number | null;
  in_order: boolean | null;
  /** Every `args` check matched; null without `args` checks. */
  args_match: boolean | null;
  redundant_calls: number;
  tool_errors: ToolErrorCounts;
  engine_errors: TurnError[];
  /** null when the provider reported no usage (see `tokens_note`). */
  tokens: Tokens | null;
  tokens_note?: string;
  wall_ms: number;
}

/** A trial's record and its transcript (what the model saw and did). */
export interface TrialRun {
  record: TrialRecord;
  transcript: {
    fixture: string;
    trial: number;
    model: string;
    provider: string;
    outcome: Outcome;
    failures: string[];
    result: TurnResult;
    session: Pick<SessionData, "messages" | "permissions" | "errors">;
  };
}

/** A session in memory that stops the turn when the model asks for one tool round too many. */
class TrialSession extends MemorySession {
  #toolRounds = 0;

  constructor(name: string, readonly maxRounds: number, readonly onLimit: () => void) {
    super(name);
  }

  override appendMessage(message: SessionMessage, options?: AppendOptions): Promise<void> {
    if (message.role === "assistant" && message.tool_calls?.length) {
      // The turn checks its signal right after this append, before any of the calls runs.
      if (++this.#toolRounds > this.maxRounds) this.onLimit();
    }
    return super.appendMessage(message, options);
  }
}

/** Ends a whole eval run early: the caller's signal was aborted (Ctrl-C). */
export class EvalCancelled extends Error {
  override name = "EvalCancelled";
}

/**
 * Runs `fixture` once with `target`. Never throws for what the model or backend does: those
 * become outcomes. Throws EvalCancelled when `signal` aborts.
 */
export async function runTrial(
  setup: EvalSetup,
  { target, fixture, trial, limits, signal }: {
    target: EvalTarget;
    fixture: Fixture;
    /** The trial's number, from 1. */
    trial: number;
    limits: TrialLimits;
    signal?: AbortSignal;
  },
): Promise<TrialRun> {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-eval-trial-" }));
  try {
    await provision(worktree, fixture.files);
    const runtime = new Runtime({
      worktree,
      config: {
        ...setup.config,
        tool_permission: { ...setup.config.tool_permission, ...fixture.permissions },
      },
      tools: setup.tools,
      owners: setup.owners,
      connection: target.connection,
      catalog: { types: new Map(), teams: new Map(), skills: new Map(), warnings: [] },
    });
    const controller = new AbortController();
    let stop: "timeout" | "turn_limit" | "cancelled" | null = null;
    const halt = (why: typeof stop) => {
      stop ??= why;
      controller.abort();
    };
    const session = new TrialSession(
      `eval_${fixture.id}_${trial}`,
      limits.maxRounds,
      () => halt("turn_limit"),
    );
    const onCancel = () => halt("cancelled");
    signal?.addEventListener("abort", onCancel, { once: true });
    if (signal?.aborted) throw new EvalCancelled("eval cancelled");
    const timer = setTimeout(() => halt("timeout"), limits.timeoutMs);
    const started = performance.now();
    let result: TurnResult;
    try {
      const engine = await runtime.engine({ headless: true, session });
      result = await engine.runTurn(fixture.prompt, { session, signal: controller.signal });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCancel);
    }
    const wall = performance.now() - started;
    if (stop === "cancelled") throw new EvalCancelled("eval cancelled");
    const files = await endState(worktree, Object.keys(fixture.verify.files ?? {}));
    const canonical = (name: string) => runtime.registry.resolve(name)?.name ?? name;
    return judge(fixture, trial, result, session.data, {
      worktree,
      files,
      wall,
      stop,
      limits,
      canonical,
    });
  } finally {
    await Deno.remove(worktree, { recursive: true }).catch(() => {});
  }
}

/** Writes the fixture's files into the trial worktree (paths were validated as relative). */
async function provision(worktree: string, files: Readonly<Record<string, string>>) {
  for (const [path, content] of Object.entries(files)) {
    const target = join(worktree, path);
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.writeTextFile(target, content, { createNew: true });
  }
}

/** The content of each path when the turn ended; null when missing or not a readable file. */
async function endState(worktree: string, paths: string[]) {
  const out: Record<string, string | null> = {};
  for (const path of paths) {
    try {
      out[path] = (await readTextCapped(join(worktree, path), 16 << 20)).text;
    } catch {
      out[path] = null;
    }
  }
  return out;
}

/** The outcome, the verifier's verdict and the metrics of a finished turn. */
function judge(
  fixture: Fixture,
  trial: number,
  result: TurnResult,
  session: Readonly<SessionData>,
  ctx: {
    worktree: string;
    files: Record<string, string | null>;
    wall: number;
    stop: "timeout" | "turn_limit" | null;
    limits: TrialLimits;
    /** Canonical tool name of a fixture's name (aliases resolved). */
    canonical(name: string): string;
  },
): TrialRun {
  const calls = observeCalls(result.tool_calls, session);
  const trace = calls.map((c) => c.name);
  const verdict = verifyTrial(fixture, {
    calls,
    answer: result.content,
    files: ctx.files,
    worktree: ctx.worktree,
  }, ctx.canonical);
  const { outcome, failures } = outcomeOf(result, { ...ctx, verdict });
  // A backend failure says nothing about how the model uses tools: its trace is not scored.
  const scores = fixture.expected && outcome !== "engine_error"
    ? traceScores(trace, fixture.expected.map(ctx.canonical))
    : null;
  const tokens = tokensOf(result.usage);
  const record: TrialRecord = {
    trial,
    outcome,
    failures,
    status: result.status,
    trace,
    calls: calls.length,
    rounds: session.messages.filter((m) => m.role === "assistant").length,
    precision: scores?.precision ?? null,
    recall: scores?.recall ?? null,
    f1: scores?.f1 ?? null,
    in_order: scores?.in_order ?? null,
    args_match: verdict.args_match,
    redundant_calls: redundantCalls(calls),
    tool_errors: countToolErrors(calls),
    engine_errors: result.errors.map(({ code, message }) => ({ code, message })),
    tokens,
    ...(tokens ? {} : { tokens_note: "the provider reported no token usage" }),
    wall_ms: Math.round(ctx.wall * 10) / 10,
  };
  return {
    record,
    transcript: {
      fixture: fixture.id,
      trial,
      model: result.model,
      provider: result.provider,
      outcome,
      failures,
      result,
      session: {
        messages: session.messages,
        permissions: session.permissions,
        errors: session.errors,
      },
    },
  };
}

/** How a turn ended for scoring, and why it failed: a stop, an engine error, or the verifier. */
function outcomeOf(
  result: TurnResult,
  { stop, limits, verdict }: {
    stop: "timeout" | "turn_limit" | null;
    limits: TrialLimits;
    verdict: { failures: readonly string[] };
  },
): { outcome: Outcome; failures: string[] } {
  if (stop === "timeout") {
    return {
      outcome: "timeout",
      failures: [`the turn took longer than ${limits.timeoutMs / 1000} s`],
    };
  }
  if (stop === "turn_limit") {
    return {
      outcome: "turn_limit",
      failures: [`the model asked for more than ${limits.maxRounds} rounds of tool calls`],
    };
  }
  if (result.status === "error") {
    return {
      outcome: "engine_error",
      failures: result.errors.map((e) => `${e.code}: ${e.message}`),
    };
  }
  const failures = [...verdict.failures];
  if (result.status !== "ok") failures.unshift(`the turn ended with status ${result.status}`);
  return { outcome: failures.length ? "fail" : "pass", failures };
}

/**
 * The token counts of a turn; the total is summed when the provider gave only the parts. svc's
 * estimate (a round the provider reported no usage for) is not a measurement: null.
 */
function tokensOf(usage: TurnResult["usage"]): Tokens | null {
  if (!usage || usage.estimated) return null;
  return {
    prompt: usage.prompt_tokens ?? null,
    completion: usage.completion_tokens ?? null,
    total: usage.total_tokens ??
      (usage.prompt_tokens !== undefined && usage.completion_tokens !== undefined
        ? usage.prompt_tokens + usage.completion_tokens
        : null),
  };
}
