/**
 * The register changes the CLI (and later a REPL) makes: add, approve, reject, enable, disable,
 * remove. Each is one read-modify-write of the register under its lock; approvals go to this
 * user's grant store, never to the register alone.
 */
import { grant, revoke } from "./approvals.ts";
import { RegisterError, updateJob, updateRegister } from "./register.ts";
import { scheduleProblem } from "./schedule.ts";
import { type Job, type JobDefinition, JobDefinitionSchema, JobSchema } from "./schema.ts";
import { approveJob, disableJob, enableJob, rejectJob } from "./states.ts";
import { ensureTaskFile } from "./task.ts";

/**
 * Adds a job as `proposed` (nothing runs), its task file created from the template when missing;
 * with `auto` (`--approval auto`) it is approved at once. Throws a RegisterError when the name is
 * taken or the definition is invalid.
 */
export async function addJob(
  worktree: string,
  definition: JobDefinition,
  options: { auto: boolean; now?: Date },
): Promise<{ job: Job; createdTaskFile: boolean }> {
  const now = options.now ?? new Date();
  const parsed = JobDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegisterError(`${issue.path.join(".") || "job"}: ${issue.message}`);
  }
  const problem = parsed.data.schedule ? scheduleProblem(parsed.data.schedule) : null;
  if (problem) throw new RegisterError(problem);
  const job = JobSchema.parse({ ...parsed.data, created_at: now.toISOString() });
  const createdTaskFile = await ensureTaskFile(worktree, {
    taskFile: job.task_file,
    name: job.name,
    prompt: job.prompt,
  });
  await updateRegister(worktree, (jobs) => {
    if (jobs.some((j) => j.name === job.name)) {
      throw new RegisterError(
        `a job named "${job.name}" exists already; remove it first (svc jobs remove ${job.name})`,
      );
    }
    if (job.schedule && "at" in job.schedule && new Date(job.schedule.at) <= now) {
      throw new RegisterError(`--at ${job.schedule.at} is not in the future`);
    }
    jobs.push(job);
  });
  if (options.auto) return { job: await approve(worktree, job.name, now), createdTaskFile };
  return { job, createdTaskFile };
}

/**
 * `approve`: this user's grant for the job's current definition (for a job with
 * require_approval, armed for exactly one run) and the job runnable again.
 */
export async function approve(worktree: string, name: string, now = new Date()): Promise<Job> {
  return await updateJob({ worktree, name }, async (job) => {
    await grant(worktree, job, { once: job.require_approval, now });
    approveJob(job, now);
    return structuredClone(job);
  });
}

/** `reject`: clears this user's grant; the job does not fire until approved again. */
export async function reject(worktree: string, name: string): Promise<Job> {
  return await updateJob({ worktree, name }, async (job) => {
    await revoke(worktree, name);
    rejectJob(job);
    return structuredClone(job);
  });
}

/** `enable`: re-armed with its next run strictly after now. */
export function enable(worktree: string, name: string, now = new Date()): Promise<Job> {
  return updateJob({ worktree, name }, (job) => {
    if (job.schedule && "at" in job.schedule && new Date(job.schedule.at) <= now) {
      throw new RegisterError(
        `job "${name}" is a one-shot job whose time (${job.schedule.at}) has passed; add it ` +
          "again with a new --at",
      );
    }
    enableJob(job, now);
    return structuredClone(job);
  });
}

/** `disable` or `stop`: nothing fires until enable (a run in progress finishes). */
export function disable(worktree: string, name: string): Promise<Job> {
  return updateJob({ worktree, name }, (job) => {
    disableJob(job);
    return structuredClone(job);
  });
}

/** `remove`: the job leaves the register and its grant is cleared; its files stay. */
export async function remove(worktree: string, name: string): Promise<Job> {
  const removed = await updateJob({ worktree, name }, (job, jobs) => {
    jobs.splice(jobs.indexOf(job), 1);
    return job;
  });
  await revoke(worktree, name);
  return removed;
}
