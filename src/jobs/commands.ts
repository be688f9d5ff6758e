/**
 * What `svc jobs` and the REPL's `/jobs` run: register changes and the views of the jobs, printed
 * as text or JSON. Each takes the worktree and parsed options; `run` and `daemon` are in
 * run_commands.ts.
 */
import type { ToolPermission } from "../config/schema.ts";
import { readRunMemory } from "../runtime/run_memory.ts";
import { checkSessionName } from "../runtime/sessions.ts";
import { AnswerSchemaError, loadAnswerSchema } from "../runtime/structured.ts";
import { UsageError } from "../shared/usage_error.ts";
import * as jobs from "./mod.ts";
import { listText, showText, statusLines } from "./render.ts";

/** Where a command's text goes and in which form. */
export interface JobsOutput {
  json?: boolean;
  /** Prints the text of list, status, show and changes (default: standard output). */
  out?: (text: string) => void;
}

/** What `svc jobs add` defines; numbers are parsed, the rest is checked here. */
export interface AddOptions extends JobsOutput {
  prompt?: string;
  file?: string;
  cron?: string;
  /** Seconds between runs. */
  every?: number;
  at?: string;
  retries?: number;
  /** Seconds each attempt may take. */
  timeout?: number;
  approval?: string;
  requireApproval?: boolean;
  approveModel?: boolean;
  type?: string;
  systemPrompt?: string;
  mode?: "plan" | "build";
  provider?: string;
  model?: string;
  toolsDeny?: string[];
  toolPermission?: ToolPermission;
  session?: string;
  /** Each run's turn limits. */
  limits?: jobs.JobDefinition["limits"];
  /** `--json-schema`: inline JSON or `@file` (read now and stored in the job). */
  jsonSchema?: string;
  jsonRetries?: number;
}

const outOf = (options: JobsOutput) => options.out ?? ((text: string) => console.log(text));
const printTo = (options: JobsOutput) => (value: unknown) =>
  outOf(options)(JSON.stringify(value, null, 2));

/** The schedule the options give (at most one of cron, every and at), or null. */
function scheduleOf(options: AddOptions): jobs.Schedule | null {
  if (options.cron !== undefined) {
    const problem = jobs.cronProblem(options.cron);
    if (problem) throw new UsageError(`--cron: ${problem}`);
    return { cron: options.cron.trim().split(/\s+/).join(" ") };
  }
  if (options.every !== undefined) return { every: options.every };
  if (options.at === undefined) return null;
  const at = jobs.parseAt(options.at);
  if (!at) {
    throw new UsageError(
      `--at takes an ISO 8601 date and time such as 2026-05-01T09:30 (local time) or ` +
        `2026-05-01T07:30Z, not "${options.at}"`,
    );
  }
  return { at: at.toISOString() };
}

/** The job's `json_schema` and `json_retries` from `--json-schema` and `--json-retries`. */
async function structuredOf(
  options: AddOptions,
): Promise<Pick<jobs.JobDefinition, "json_schema" | "json_retries">> {
  if (options.jsonSchema === undefined) {
    if (options.jsonRetries !== undefined) {
      throw new UsageError("--json-retries needs --json-schema");
    }
    return {};
  }
  try {
    const { schema } = await loadAnswerSchema(options.jsonSchema, { flag: "--json-schema" });
    return {
      json_schema: schema,
      ...(options.jsonRetries !== undefined ? { json_retries: options.jsonRetries } : {}),
    };
  } catch (err) {
    throw err instanceof AnswerSchemaError ? new UsageError(err.message) : err;
  }
}

/** `svc jobs add <name>`: the job proposed (or approved with `approval: "auto"`). */
export async function add(worktree: string, name: string, options: AddOptions): Promise<void> {
  if (!jobs.JOB_NAME.test(name)) throw new UsageError(`"${name}": ${jobs.JOB_NAME_RULE}`);
  const schedules = [options.cron, options.every, options.at].filter((v) => v !== undefined);
  if (schedules.length > 1) throw new UsageError("give one schedule: --cron, --every or --at");
  if (options.prompt === undefined && options.file === undefined) {
    throw new UsageError(
      'a job needs --prompt "...", --file <task.md> or both (the task file is re-read every run)',
    );
  }
  if (options.approval !== undefined && options.approval !== "auto") {
    throw new UsageError(`--approval takes only "auto" (without it the job is proposed)`);
  }
  if (options.session !== undefined) {
    const problem = checkSessionName(options.session);
    if (problem) throw new UsageError(`--session: ${problem}`);
  }
  const schedule = scheduleOf(options);
  const structured = await structuredOf(options);
  if (options.type !== undefined) {
    const { Runtime } = await import("../runtime/runtime.ts");
    const runtime = await Runtime.load({ path: worktree });
    const catalog = await runtime.catalog();
    runtime.plugins.close();
    if (!catalog.types.has(options.type)) {
      const known = [...catalog.types.keys()].sort().join(", ") || "none";
      throw new UsageError(`unknown type "${options.type}"; available types: ${known}`);
    }
  }
  const definition: jobs.JobDefinition = {
    name,
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    task_file: options.file !== undefined
      ? jobs.storedTaskFile(worktree, options.file)
      : jobs.defaultTaskFile(name),
    schedule,
    retries: options.retries ?? jobs.DEFAULT_RETRIES,
    timeout: options.timeout ?? jobs.DEFAULT_TIMEOUT_SECONDS,
    ...(options.type !== undefined ? { type: options.type } : {}),
    ...(options.systemPrompt !== undefined ? { system_prompt: options.systemPrompt } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.toolsDeny !== undefined ? { tools_deny: options.toolsDeny } : {}),
    ...(options.toolPermission !== undefined ? { tool_permission: options.toolPermission } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    approve_model: Boolean(options.approveModel),
    require_approval: Boolean(options.requireApproval),
    ...(options.session !== undefined ? { session: options.session } : {}),
    ...structured,
  };
  const { job, createdTaskFile } = await jobs.addJob(worktree, definition, {
    auto: options.approval === "auto",
  });
  if (options.json) return printTo(options)(job);
  const taskPath = jobs.taskFilePath(worktree, job.task_file);
  console.log(
    `Added job ${name} (${jobs.describeSchedule(job.schedule)}): ${job.state}` +
      (job.next_run_at ? `, next run ${job.next_run_at}` : ""),
  );
  console.log(`Task file: ${taskPath}${createdTaskFile ? " (created from the template)" : ""}`);
  if (job.state === "proposed") {
    console.log(`Nothing runs until you approve it: svc jobs approve ${name}`);
  }
}

/** `svc jobs list`. */
export async function list(worktree: string, options: JobsOutput): Promise<void> {
  const rows = await jobs.jobRows(worktree);
  if (options.json) return printTo(options)(rows);
  outOf(options)(listText(rows));
}

/** `svc jobs status`. */
export async function status(worktree: string, options: JobsOutput): Promise<void> {
  const report = await jobs.jobsStatus(worktree);
  if (options.json) return printTo(options)(report);
  for (const line of statusLines(report)) outOf(options)(line);
}

/** The job named `name`, or an error listing the names. */
async function jobNamed(worktree: string, name: string): Promise<jobs.Job> {
  const { jobs: all } = await jobs.readRegister(worktree);
  const job = all.find((j) => j.name === name);
  if (job) return job;
  const known = all.map((j) => j.name).join(", ") || "none";
  throw new Error(`no job named "${name}" (jobs: ${known})`);
}

/** `svc jobs show <name>`. */
export async function show(worktree: string, name: string, options: JobsOutput): Promise<void> {
  const job = await jobNamed(worktree, name);
  const [row] = await jobs.jobRows(worktree, [job]);
  const memory = jobs.memoryPath(worktree, name);
  const text = await readRunMemory(memory);
  const preview = text.split("\n").slice(0, 12).join("\n").slice(0, 1200);
  const taskFile = jobs.taskFilePath(worktree, job.task_file);
  if (options.json) {
    return printTo(options)({
      ...job,
      shown_state: row.state,
      approval: row.approval,
      task_file_path: taskFile,
      memory_path: memory,
      memory_preview: preview,
    });
  }
  outOf(options)(showText(job, { row, taskFile, memory, memoryText: text, preview }));
}

/** approve, reject, enable, disable (stop), remove: one change, then the job's line. */
export async function change(
  worktree: string,
  options: JobsOutput & {
    what: "approve" | "reject" | "enable" | "disable" | "remove";
    name: string;
  },
): Promise<void> {
  const { what, name } = options;
  const job = await jobs[what](worktree, name);
  if (options.json) {
    const [row] = what === "remove" ? [undefined] : await jobs.jobRows(worktree, [job]);
    return printTo(options)(row ? { ...job, shown_state: row.state, approval: row.approval } : job);
  }
  const [row] = await jobs.jobRows(worktree, [job]);
  const next = job.next_run_at ? `, next run ${job.next_run_at}` : "";
  const said: Record<typeof what, string> = {
    approve: job.require_approval
      ? `Approved ${name} for its next run (it parks in waiting_approval after it)${next}`
      : `Approved ${name}: ${row.state}${next}`,
    reject: `Rejected ${name}: your approval is cleared; it does not fire until approved again`,
    enable: `Enabled ${name}: ${row.state}${next}`,
    disable: `Disabled ${name}: it does not fire until svc jobs enable ${name}`,
    remove: `Removed ${name}; its task file and memory stay (${
      jobs.taskFilePath(worktree, job.task_file)
    }, ${jobs.memoryPath(worktree, name)})`,
  };
  outOf(options)(said[what]);
}

/** `svc jobs edit <name>`: the task file in $VISUAL or $EDITOR (created from the template). */
export async function edit(worktree: string, name: string): Promise<number> {
  const job = await jobNamed(worktree, name);
  await jobs.ensureTaskFile(worktree, { taskFile: job.task_file, name, prompt: job.prompt });
  const path = jobs.taskFilePath(worktree, job.task_file);
  const editor = (Deno.env.get("VISUAL") || Deno.env.get("EDITOR") || "").trim();
  if (!editor) {
    throw new Error(
      `no editor: set VISUAL or EDITOR (for example EDITOR=nano), or edit ${path} yourself`,
    );
  }
  // Through the shell, so EDITOR may carry arguments ("code --wait").
  const status = await new Deno.Command("sh", {
    args: ["-c", `${editor} "$1"`, "svc-jobs-edit", path],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  return status.code;
}
