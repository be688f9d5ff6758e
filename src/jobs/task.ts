/**
 * A job's files: its Markdown task file (default `.svc/jobs/<name>.md`, re-read at the start of
 * every run), its run memory (`.svc/jobs/<name>.memory.md`) and its run lock; and the system
 * prompt a run is given (type prompt or the generic recurring-job prompt, `## Job task`, the
 * job's system_prompt, `## Run memory`).
 */
import { isAbsolute, join, relative, resolve } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { readTextCapped } from "../util/fs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";

/** The task file is read up to this many characters. */
export const TASK_FILE_MAX = 50_000;

/** The folder of task files, memories and run locks. */
export function jobsDir(worktree: string): string {
  return join(localDir(worktree), "jobs");
}

/** The default task file of a job, worktree-relative as the register stores it. */
export function defaultTaskFile(name: string): string {
  return `.svc/jobs/${name}.md`;
}

/** How the register stores a task file path: worktree-relative when inside it, else absolute. */
export function storedTaskFile(worktree: string, path: string): string {
  const absolute = resolve(worktree, path);
  return isInside(worktree, absolute) ? relative(worktree, absolute) : absolute;
}

/** The absolute path of a job's task file. */
export function taskFilePath(worktree: string, taskFile: string): string {
  return isAbsolute(taskFile) ? taskFile : join(worktree, taskFile);
}

/** `.svc/jobs/<name>.memory.md`. */
export function memoryPath(worktree: string, name: string): string {
  return join(jobsDir(worktree), `${name}.memory.md`);
}

/** The lock a running job holds (freed by the kernel when its process ends). */
export function runLockPath(worktree: string, name: string): string {
  return join(jobsDir(worktree), `${name}.run.lock`);
}

/** `.svc/jobs.daemon.lock`: held by the running daemon, naming it. */
export function daemonLockPath(worktree: string): string {
  return join(localDir(worktree), "jobs.daemon.lock");
}

/** A new task file: sections Task, Done when, Notes. */
export function taskTemplate(name: string, prompt?: string): string {
  return [
    `# Job ${name}`,
    "",
    "## Task",
    "",
    prompt?.trim() || "Describe what this job should do on every run.",
    "",
    "## Done when",
    "",
    "- Say what a successful run has produced.",
    "",
    "## Notes",
    "",
    "",
  ].join("\n");
}

/** Creates the task file from the template when it is missing; returns whether it did. */
export async function ensureTaskFile(
  worktree: string,
  { taskFile, name, prompt }: { taskFile: string; name: string; prompt?: string },
): Promise<boolean> {
  const path = taskFilePath(worktree, taskFile);
  try {
    await Deno.lstat(path);
    return false;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(join(path, ".."), { recursive: true });
  try {
    await Deno.writeTextFile(path, taskTemplate(name, prompt), { createNew: true });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    throw err;
  }
  return true;
}

/** A task file an untrusted worktree names that leads outside it; the run fails with the message. */
export class TaskFileOutsideError extends Error {
  override name = "TaskFileOutsideError";
}

/**
 * Why an untrusted worktree may not have its job read `taskFile`: after `..` and symbolic links
 * it lies outside the worktree (a cloned `.svc/jobs.json` could otherwise name
 * `../../.config/svc/providers.json` and have the key put into the prompt). Undefined inside.
 */
export function taskFileLeaves(worktree: string, taskFile: string): string | undefined {
  const root = canonicalPath(worktree, ".");
  const real = canonicalPath(root, taskFilePath(worktree, taskFile));
  if (isInside(root, real)) return undefined;
  return `task file ${taskFile} leads outside the worktree (to ${real}); svc reads a job's task ` +
    "file outside the worktree only when the worktree is trusted (svc trust)";
}

/**
 * The task file's text, or null when it does not exist (the run fails: `task file not found`).
 * With `confine` (an untrusted worktree) a task file leading outside the worktree is not read: a
 * TaskFileOutsideError says why.
 */
export async function readTaskFile(
  worktree: string,
  taskFile: string,
  { confine = false }: { confine?: boolean } = {},
): Promise<string | null> {
  if (confine) {
    const outside = taskFileLeaves(worktree, taskFile);
    if (outside) throw new TaskFileOutsideError(outside);
  }
  try {
    const { text } = await readTextCapped(taskFilePath(worktree, taskFile), TASK_FILE_MAX * 4, {
      head: true,
    });
    return text.length <= TASK_FILE_MAX
      ? text
      : `${text.slice(0, TASK_FILE_MAX)}\n[... task file truncated at ${TASK_FILE_MAX} characters]`;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw err;
  }
}

/** The fallback when a job has no agent type: what a recurring, unattended run is. */
export const RECURRING_JOB_PROMPT =
  "You are svc running a scheduled, recurring job in the directory {worktree}, unattended: no " +
  "one answers questions during the run and tools that need confirmation are refused. Do the job " +
  "task below with the tools (inspect files and run commands rather than guessing), stop when its " +
  "'Done when' is met, and end with a short report of what you did and found. The run memory " +
  "holds what earlier runs learned; do not repeat work it says is done.";

/**
 * The system prompt parts of a run: `lead` (the type prompt, or the recurring-job prompt) with the
 * task file under `## Job task`, and `tail` (the job's or config's system_prompt, then the run
 * memory under `## Run memory`). The engine places `lead` before `tail`.
 */
export function jobPrompt(parts: {
  worktree: string;
  typePrompt?: string;
  task: string;
  systemPrompt?: string;
  memory: string;
}): { lead: string; tail?: string } {
  const lead = [
    parts.typePrompt ?? RECURRING_JOB_PROMPT.replace("{worktree}", parts.worktree),
    `## Job task\n\n${parts.task.trim() || "(the task file is empty)"}`,
  ].join("\n\n");
  const tail = [
    ...(parts.systemPrompt?.trim() ? [parts.systemPrompt.trim()] : []),
    ...(parts.memory.trim() ? [`## Run memory\n\n${parts.memory.trim()}`] : []),
  ];
  return tail.length ? { lead, tail: tail.join("\n\n") } : { lead };
}
