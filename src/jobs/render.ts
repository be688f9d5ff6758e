/** The text `svc jobs` and the REPL's `/jobs` print: the tables, the status and one job's page. */
import { table } from "../util/text_table.ts";
import type { Job } from "./schema.ts";
import type { JobRow, JobsStatus } from "./status.ts";

/** What the job waits for, in words: the APPROVAL column. */
export function approvalWords(row: JobRow): string {
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

/** `svc jobs list`: one row per job, or how to add one. */
export function listText(rows: JobRow[]): string {
  if (!rows.length) return 'No jobs (add one with svc jobs add <name> --prompt "..." --every 3600)';
  return table(
    ["NAME", "STATE", "SCHEDULE", "NEXT RUN", "APPROVAL"],
    rows.map((r) => [r.name, r.state, r.schedule, r.next_run_at ?? "-", approvalWords(r)]),
  );
}

/** `svc jobs status`, line by line: the daemon, the worktree, notes and a table of the jobs. */
export function statusLines(report: JobsStatus): string[] {
  const d = report.daemon;
  const lines = [
    d.running
      ? `daemon: running (pid ${d.pid}, up ${duration(d.uptime_seconds ?? 0)})`
      : "daemon: not running",
    `worktree: ${report.worktree} (${report.trusted ? "trusted" : "not trusted"})`,
    ...report.notes,
  ];
  if (!report.jobs.length) return lines;
  lines.push("");
  lines.push(table(
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
  return lines;
}

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

/** What `svc jobs show` prints beside the job itself. */
export interface ShowPaths {
  taskFile: string;
  memory: string;
  /** The memory file's text ("" when there is none). */
  memoryText: string;
  /** Its first lines, as the JSON's `memory_preview`. */
  preview: string;
}

/** `svc jobs show <name>`: the definition, the last run, the memory and the last output. */
export function showText(job: Job, { row, ...paths }: ShowPaths & { row: JobRow }): string {
  const lines = [
    `job ${job.name}: ${row.state} (${approvalWords(row)})`,
    `schedule: ${row.schedule}; next run: ${row.next_run_at ?? "-"}`,
    `retries: ${job.retries}; timeout: ${job.timeout} s; require_approval: ${job.require_approval}`,
    ...(job.prompt !== undefined ? [`prompt: ${job.prompt}`] : []),
    `task file: ${paths.taskFile}`,
    ...overrideLines(job),
    `fired: ${job.fired.ok} ok, ${job.fired.failed} failed; last run: ${job.last_run_at ?? "-"}` +
    (job.last_session ? ` (session ${job.last_session})` : ""),
    ...(job.last_error ? [`last error: ${job.last_error}`] : []),
    `memory: ${paths.memory}${paths.memoryText ? "" : " (none yet)"}`,
  ];
  if (paths.preview.trim()) lines.push(indent(paths.preview));
  lines.push("last output:");
  lines.push(job.last_output?.trim() ? indent(job.last_output.trim()) : "  (none)");
  return lines.join("\n");
}

function overrideLines(job: Job): string[] {
  const out: string[] = [];
  for (const key of ["type", "system_prompt", "mode", "provider", "model", "session"] as const) {
    if (job[key] !== undefined) out.push(`${key}: ${job[key]}`);
  }
  if (job.tools_deny?.length) out.push(`tools_deny: ${job.tools_deny.join(", ")}`);
  if (job.tool_permission) out.push(`tool_permission: ${JSON.stringify(job.tool_permission)}`);
  if (job.limits) out.push(`limits: ${JSON.stringify(job.limits)}`);
  if (job.approve_model) out.push("approve_model: true");
  return out;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}
