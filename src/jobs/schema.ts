/**
 * The job register `.svc/jobs.json`: its shape, validated with zod on every read. One register per
 * worktree; the CLI, a REPL and the daemon read-modify-write it under its lock (register.ts).
 */
import * as z from "zod";
import { ToolPermissionSchema } from "../config/schema.ts";
import { MAX_JSON_RETRIES } from "../runtime/structured.ts";

/** The states SPEC names, spelled as it spells them. */
export const JOB_STATES = [
  "proposed",
  "approved",
  "will_run",
  "executing",
  "verified",
  "failed",
  "timeout",
  "waiting_approval",
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The register keeps the attempt records of this many runs per job (the newest). */
export const HISTORY_RUNS = 100;
/** The last output kept in the register (characters; `jobs show` prints it). */
export const LAST_OUTPUT_MAX = 4000;
/** Output and error kept in one attempt record (characters). */
export const ATTEMPT_TEXT_MAX = 300;
/** Defaults of the run flags. */
export const DEFAULT_RETRIES = 0;
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** Job names: they name files (`.svc/jobs/<name>.md`), so letters, digits, `_` and `-`. */
export const JOB_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
export const JOB_NAME_RULE = "a job name is 1-64 letters, digits, _ or - and does not start with -";

/** A schedule: a 5-field cron expression, an interval in seconds, or a one-shot time. */
export const ScheduleSchema = z.union([
  z.strictObject({ cron: z.string().min(1) }),
  z.strictObject({ every: z.number().int().min(1) }),
  z.strictObject({ at: z.iso.datetime({ offset: true }) }),
]);
export type Schedule = z.infer<typeof ScheduleSchema>;

/** One attempt of a run, as the register records it. */
export const AttemptSchema = z.object({
  run: z.number().int().min(1),
  attempt: z.number().int().min(1),
  started_at: z.string(),
  ended_at: z.string().nullable().default(null),
  /** A TurnResult status, `timeout`, or null while it runs. */
  status: z.string().nullable().default(null),
  session: z.string().nullable().default(null),
  /** `daemon` or `manual`. */
  by: z.enum(["daemon", "manual"]),
  output: z.string().optional(),
  error: z.string().optional(),
  /** The turn's stop reason when it was not a plain answer (`max_turns`, `max_cost`, ...). */
  reason: z.string().optional(),
});
export type Attempt = z.infer<typeof AttemptSchema>;

/** A job's turn limits, as the config's `limits.max_turns`, `max_tokens_total`, `max_cost`. */
export const JobLimitsSchema = z.strictObject({
  max_turns: z.number().int().min(1).max(64).optional(),
  max_tokens_total: z.number().int().min(1).optional(),
  max_cost: z.number().positive().optional(),
});

/** The fields that define what a job does; its approval is bound to a hash of them. */
export const JobDefinitionSchema = z.object({
  name: z.string().regex(JOB_NAME, JOB_NAME_RULE),
  prompt: z.string().optional(),
  task_file: z.string().min(1),
  schedule: ScheduleSchema.nullable().default(null),
  retries: z.number().int().min(0).max(100).default(DEFAULT_RETRIES),
  /** Seconds per attempt. */
  timeout: z.number().positive().max(7 * 86400).default(DEFAULT_TIMEOUT_SECONDS),
  type: z.string().min(1).optional(),
  system_prompt: z.string().optional(),
  mode: z.enum(["plan", "build"]).optional(),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  tools_deny: z.array(z.string()).optional(),
  tool_permission: ToolPermissionSchema.optional(),
  /** Each run's turn limits (docs/run.md#limits), over the config's `limits.*`. */
  limits: JobLimitsSchema.optional(),
  approve_model: z.boolean().default(false),
  require_approval: z.boolean().default(false),
  session: z.string().optional(),
  /** svc extension: the answer must be JSON valid against this JSON Schema (docs/jobs.md). */
  json_schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]).optional(),
  /** svc extension: repair requests after an answer that does not validate (default 2). */
  json_retries: z.number().int().min(0).max(MAX_JSON_RETRIES).optional(),
});
export type JobDefinition = z.infer<typeof JobDefinitionSchema>;

/** A job: its definition plus the state the scheduler keeps. */
export const JobSchema = JobDefinitionSchema.extend({
  state: z.enum(JOB_STATES).default("proposed"),
  enabled: z.boolean().default(true),
  /** The single source of truth for scheduling; null when nothing is scheduled. */
  next_run_at: z.string().nullable().default(null),
  created_at: z.string(),
  /** Runs so far (numbers the attempt records). */
  runs: z.number().int().min(0).default(0),
  fired: z.object({ ok: z.number().int().min(0), failed: z.number().int().min(0) })
    .default({ ok: 0, failed: 0 }),
  last_run_at: z.string().nullable().default(null),
  last_error: z.string().nullable().default(null),
  last_output: z.string().nullable().default(null),
  last_session: z.string().nullable().default(null),
  history: z.array(AttemptSchema).default([]),
});
export type Job = z.infer<typeof JobSchema>;

export const RegisterSchema = z.object({
  jobs: z.array(JobSchema).default([]),
});
export type Register = z.infer<typeof RegisterSchema>;

/** The definition part of a job (what approval covers). */
export function definitionOf(job: JobDefinition): JobDefinition {
  const keys = Object.keys(JobDefinitionSchema.shape) as Array<keyof JobDefinition>;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (job[key] !== undefined) out[key] = job[key];
  return out as JobDefinition;
}
