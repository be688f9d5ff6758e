/**
 * The actions of `svc jobs`: argv flags to register changes, runs and the daemon, printed as text
 * or JSON. Everything a job does lives in src/jobs; this file only reads flags and prints.
 */
import { checkSessionName } from "../session/naming.ts";
import type { EngineEvent } from "../engine/events.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { readRunMemory } from "../engine/run_memory.ts";
import { CATEGORIES, type ToolPermission } from "../config/schema.ts";
import { ACTIONS } from "../shared/types.ts";
import * as jobs from "../jobs/mod.ts";
import { table } from "../util/text_table.ts";
import { UsageError } from "./usage.ts";

/** Flags every subcommand sees (`--path` before the subcommand, `--json` anywhere). */
export interface JobsFlags {
  path?: string;
  json?: boolean;
  /** Prints the text of list, status, show and changes (default: standard output). */
  out?: (text: string) => void;
}

/** Flags of `svc jobs add`. */
export interface AddFlags extends JobsFlags {
  prompt?: string;
  file?: string;
  cron?: string;
  every?: string;
  at?: string;
  retries?: string;
  timeout?: string;
  approval?: string;
  requireApproval?: boolean;
  approveModel?: boolean;
  type?: string;
  systemPrompt?: string;
  mode?: "plan" | "build";
  provider?: string;
  model?: string;
  toolsDeny?: string;
  toolPermission?: string;
  session?: string;
}

/** Where a command's text goes: standard output, or the REPL's scrollback for `/jobs`. */
const outOf = (flags: JobsFlags) => flags.out ?? ((text: string) => console.log(text));
const printTo = (flags: JobsFlags) => (value: unknown) =>
  outOf(flags)(JSON.stringify(value, null, 2));

function worktreeOf(flags: JobsFlags): string {
  return resolveWorktree(flags.path);
}

function positiveInt(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) {
    throw new UsageError(
      `${flag} takes a whole number of ${min === 0 ? "0 or more" : "1 or more"}`,
    );
  }
  return Number(value);
}

/** `edit=allow,bash=deny` (categories and actions as the config spells them). */
export function parseToolPermission(text: string): ToolPermission {
  const out: Record<string, string> = {};
  for (const pair of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [category, action, extra] = pair.split("=").map((p) => p.trim());
    if (
      extra !== undefined || !(CATEGORIES as readonly string[]).includes(category) ||
      !(ACTIONS as readonly string[]).includes(action)
    ) {
      throw new UsageError(
        `--tool-permission takes category=action pairs separated by commas (categories: ${
          CATEGORIES.join(", ")
        }; actions: ${ACTIONS.join(", ")}), not "${pair}"`,
      );
    }
    out[category] = action;
  }
  return out as ToolPermission;
}

/** `svc jobs add <name>`. */
export async function add(name: string, flags: AddFlags): Promise<void> {
  if (!jobs.JOB_NAME.test(name)) throw new UsageError(`"${name}": ${jobs.JOB_NAME_RULE}`);
  const schedules = [flags.cron, flags.every, flags.at].filter((v) => v !== undefined);
  if (schedules.length > 1) throw new UsageError("give one schedule: --cron, --every or --at");
  if (flags.prompt === undefined && flags.file === undefined) {
    throw new UsageError(
      'a job needs --prompt "...", --file <task.md> or both (the task file is re-read every run)',
    );
  }
  if (flags.approval !== undefined && flags.approval !== "auto") {
    throw new UsageError(`--approval takes only "auto" (without it the job is proposed)`);
  }
  if (flags.session !== undefined) {
    const problem = checkSessionName(flags.session);
    if (problem) throw new UsageError(`--session: ${problem}`);
  }
  let schedule: jobs.Schedule | null = null;
  if (flags.cron !== undefined) {
    const problem = jobs.cronProblem(flags.cron);
    if (problem) throw new UsageError(`--cron: ${problem}`);
    schedule = { cron: flags.cron.trim().split(/\s+/).join(" ") };
  } else if (flags.every !== undefined) {
    schedule = { every: positiveInt("--every", flags.every, 1) };
  } else if (flags.at !== undefined) {
    const at = jobs.parseAt(flags.at);
    if (!at) {
      throw new UsageError(
        `--at takes an ISO 8601 date and time such as 2026-05-01T09:30 (local time) or ` +
          `2026-05-01T07:30Z, not "${flags.at}"`,
      );
    }
    schedule = { at: at.toISOString() };
  }
  const worktree = worktreeOf(flags);
  if (flags.type !== undefined) {
    const { Runtime } = await import("../runtime/runtime.ts");
    const runtime = await Runtime.load({ path: worktree });
    const catalog = await runtime.catalog();
    runtime.plugins.close();
    if (!catalog.types.has(flags.type)) {
      const known = [...catalog.types.keys()].sort().join(", ") || "none";
      throw new UsageError(`unknown type "${flags.type}"; available types: ${known}`);
    }
  }
  const definition: jobs.JobDefinition = {
    name,
    ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
    task_file: flags.file !== undefined
      ? jobs.storedTaskFile(worktree, flags.file)
      : jobs.defaultTaskFile(name),
    schedule,
    retries: flags.retries !== undefined
      ? positiveInt("--retries", flags.retries, 0)
      : jobs.DEFAULT_RETRIES,
    timeout: flags.timeout !== undefined
      ? positiveInt("--timeout", flags.timeout, 1)
      : jobs.DEFAULT_TIMEOUT_SECONDS,
    ...(flags.type !== undefined ? { type: flags.type } : {}),
    ...(flags.systemPrompt !== undefined ? { system_prompt: flags.systemPrompt } : {}),
    ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(flags.toolsDeny !== undefined
      ? { tools_deny: flags.toolsDeny.split(",").map((t) => t.trim()).filter(Boolean) }
      : {}),
    ...(flags.toolPermission !== undefined
      ? { tool_permission: parseToolPermission(flags.toolPermission) }
      : {}),
    approve_model: Boolean(flags.approveModel),
    require_approval: Boolean(flags.requireApproval),
    ...(flags.session !== undefined ? { session: flags.session } : {}),
  };
  const { job, createdTaskFile } = await jobs.addJob(worktree, definition, {
    auto: flags.approval === "auto",
  });
  if (flags.json) return printTo(flags)(job);
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
export async function list(flags: JobsFlags): Promise<void> {
  const out = outOf(flags);
  const rows = await jobs.jobRows(worktreeOf(flags));
  if (flags.json) return printTo(flags)(rows);
  if (!rows.length) {
    out('No jobs (add one with svc jobs add <name> --prompt "..." --every 3600)');
    return;
  }
  out(table(
    ["NAME", "STATE", "SCHEDULE", "NEXT RUN", "APPROVAL"],
    rows.map((r) => [r.name, r.state, r.schedule, r.next_run_at ?? "-", approvalWords(r)]),
  ));
}

function approvalWords(row: jobs.JobRow): string {
  if (row.state === "waiting_approval") return "WAITING for approve";
  switch (row.approval) {
    case "approved":
      return row.require_approval ? "approved (needs approve per run)" : "approved";
    case "armed":
      return "armed for one run";
    case "changed":
      return "changed since approval";
    default:
      return "not approved";
  }
}

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

/** `svc jobs status`. */
export async function status(flags: JobsFlags): Promise<void> {
  const out = outOf(flags);
  const report = await jobs.jobsStatus(worktreeOf(flags));
  if (flags.json) return printTo(flags)(report);
  const d = report.daemon;
  out(
    d.running
      ? `daemon: running (pid ${d.pid}, up ${duration(d.uptime_seconds ?? 0)})`
      : "daemon: not running",
  );
  out(`worktree: ${report.worktree} (${report.trusted ? "trusted" : "not trusted"})`);
  for (const note of report.notes) out(note);
  if (!report.jobs.length) return;
  out("");
  out(table(
    ["NAME", "STATE", "FIRED OK", "FAILED", "NEXT RUN", "APPROVAL", "LAST ERROR"],
    report.jobs.map((r) => [
      r.name,
      r.state,
      String(r.fired.ok),
      String(r.fired.failed),
      r.next_run_at ?? "-",
      approvalWords(r),
      r.last_error ? r.last_error.replace(/\s+/g, " ").slice(0, 80) : "-",
    ]),
  ));
}

/** `svc jobs show <name>`. */
export async function show(name: string, flags: JobsFlags): Promise<void> {
  const out = outOf(flags);
  const worktree = worktreeOf(flags);
  const { jobs: all } = await jobs.readRegister(worktree);
  const job = all.find((j) => j.name === name);
  if (!job) throw new Error(noSuchJob(name, all));
  const [row] = await jobs.jobRows(worktree, [job]);
  const memory = jobs.memoryPath(worktree, name);
  const text = await readRunMemory(memory);
  const preview = text.split("\n").slice(0, 12).join("\n").slice(0, 1200);
  if (flags.json) {
    return printTo(flags)({
      ...job,
      shown_state: row.state,
      approval: row.approval,
      task_file_path: jobs.taskFilePath(worktree, job.task_file),
      memory_path: memory,
      memory_preview: preview,
    });
  }
  const lines = [
    `job ${name}: ${row.state} (${approvalWords(row)})`,
    `schedule: ${jobs.describeSchedule(job.schedule)}; next run: ${row.next_run_at ?? "-"}`,
    `retries: ${job.retries}; timeout: ${job.timeout} s; require_approval: ${job.require_approval}`,
    ...(job.prompt !== undefined ? [`prompt: ${job.prompt}`] : []),
    `task file: ${jobs.taskFilePath(worktree, job.task_file)}`,
    ...overrideLines(job),
    `fired: ${job.fired.ok} ok, ${job.fired.failed} failed; last run: ${job.last_run_at ?? "-"}` +
    (job.last_session ? ` (session ${job.last_session})` : ""),
    ...(job.last_error ? [`last error: ${job.last_error}`] : []),
    `memory: ${memory}${text ? "" : " (none yet)"}`,
  ];
  if (preview.trim()) lines.push(indent(preview));
  lines.push("last output:");
  lines.push(job.last_output?.trim() ? indent(job.last_output.trim()) : "  (none)");
  out(lines.join("\n"));
}

function overrideLines(job: jobs.Job): string[] {
  const out: string[] = [];
  for (const key of ["type", "system_prompt", "mode", "provider", "model", "session"] as const) {
    if (job[key] !== undefined) out.push(`${key}: ${job[key]}`);
  }
  if (job.tools_deny?.length) out.push(`tools_deny: ${job.tools_deny.join(", ")}`);
  if (job.tool_permission) out.push(`tool_permission: ${JSON.stringify(job.tool_permission)}`);
  if (job.approve_model) out.push("approve_model: true");
  return out;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}

function noSuchJob(name: string, all: readonly jobs.Job[]): string {
  const known = all.map((j) => j.name).join(", ") || "none";
  return `no job named "${name}" (jobs: ${known})`;
}

/** approve, reject, enable, disable (stop), remove: one change, then the job's line. */
export async function change(
  what: "approve" | "reject" | "enable" | "disable" | "remove",
  name: string,
  flags: JobsFlags,
): Promise<void> {
  const out = outOf(flags);
  const worktree = worktreeOf(flags);
  const job = await jobs[what](worktree, name);
  if (flags.json) {
    const [row] = what === "remove" ? [undefined] : await jobs.jobRows(worktree, [job]);
    return printTo(flags)(row ? { ...job, shown_state: row.state, approval: row.approval } : job);
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
  out(said[what]);
}

/** `svc jobs edit <name>`: the task file in $VISUAL or $EDITOR (created from the template). */
export async function edit(name: string, flags: JobsFlags): Promise<number> {
  const worktree = worktreeOf(flags);
  const { jobs: all } = await jobs.readRegister(worktree);
  const job = all.find((j) => j.name === name);
  if (!job) throw new Error(noSuchJob(name, all));
  await jobs.ensureTaskFile(worktree, job.task_file, name, job.prompt);
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

/** Flags of `svc jobs run`. */
export interface RunFlags extends JobsFlags {
  retry?: boolean;
  verbose?: boolean;
}

/** Signals that stop a run or the daemon: the running attempt is cancelled and saved. */
function onStop(controller: AbortController, what: string): () => void {
  let count = 0;
  const stop = () => {
    if (++count > 1) Deno.exit(130);
    console.error(`\n${what}: stopping (the running attempt is cancelled and saved)`);
    controller.abort();
  };
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  return () => signals.forEach((s) => Deno.removeSignalListener(s, stop));
}

/** `svc jobs run <name>`: one run now (the approval gate overridden); exit 0 when verified. */
export async function run(name: string, flags: RunFlags): Promise<number> {
  const worktree = worktreeOf(flags);
  const { Runtime } = await import("../runtime/runtime.ts");
  const { renderTextEvent } = await import("./render_text.ts");
  let runtime: Promise<Runtime> | undefined;
  const load = () =>
    runtime ??= Runtime.load({ path: worktree }).then((r) => {
      for (const warning of r.warnings) console.error(`warning: ${warning}`);
      return r;
    });
  const controller = new AbortController();
  const release = onStop(controller, "svc jobs run");
  try {
    const report = await jobs.runJob({
      worktree,
      name,
      by: "manual",
      runtime: load,
      noRetry: flags.retry === false,
      signal: controller.signal,
      onEvent: flags.verbose
        ? (event: EngineEvent) => renderTextEvent(event, { verbose: true, out: null })
        : undefined,
      log: flags.verbose ? (line) => console.error(`svc jobs run: ${line}`) : undefined,
    });
    if ("refused" in report) {
      console.error(`svc jobs run: ${report.refused}`);
      return 1;
    }
    if (flags.json) printTo(flags)(report);
    else {
      if (report.output) console.log(report.output.trimEnd());
      console.error(
        `svc jobs run: ${name} run ${report.run}: ${report.state}` +
          (report.error ? ` (${report.error})` : "") +
          (report.session ? `; session ${report.session}` : ""),
      );
    }
    return report.verified ? 0 : 1;
  } finally {
    release();
    if (runtime) (await runtime.catch(() => null))?.plugins.close();
  }
}

/** Flags of `svc jobs daemon`. */
export interface DaemonFlags extends JobsFlags {
  tick: string;
  printUnit?: boolean;
}

/** `svc jobs daemon`: runs until SIGINT or SIGTERM; `--print-unit` prints a systemd user unit. */
export async function daemon(flags: DaemonFlags): Promise<number> {
  const tick = Number(flags.tick);
  if (!Number.isFinite(tick) || tick <= 0 || tick > 86400) {
    throw new UsageError("--tick takes a number of seconds above 0 (at most 86400)");
  }
  const worktree = worktreeOf(flags);
  if (flags.printUnit) {
    console.log(jobs.systemdUnit(worktree, tick));
    return 0;
  }
  const controller = new AbortController();
  const release = onStop(controller, "svc jobs daemon");
  try {
    const result = await jobs.runDaemon({
      worktree,
      tickSeconds: tick,
      signal: controller.signal,
      // Imported on the first run: an idle daemon never loads the engine or the plugins.
      loadRuntime: async () => {
        const { Runtime } = await import("../runtime/runtime.ts");
        const runtime = await Runtime.load({ path: worktree });
        for (const w of runtime.warnings) console.error(`svc jobs daemon: warning: ${w}`);
        for (const w of await runtime.start()) console.error(`svc jobs daemon: warning: ${w}`);
        return runtime;
      },
      log: (line) => console.error(`${new Date().toISOString()} svc jobs daemon: ${line}`),
    });
    if ("refused" in result) {
      console.error(`svc jobs daemon: ${result.refused}`);
      return 1;
    }
    return 0;
  } finally {
    release();
  }
}
