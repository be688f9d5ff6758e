/**
 * Reading and crash-safe rewriting of `.svc/jobs.json`. Every change is a read-modify-write under
 * the file's exclusive lock (`<path>.lock`), so the CLI, a REPL and the daemon never lose each
 * other's updates; the write goes through a temp file and a rename, so a killed process leaves the
 * old or the new register, never a torn one. A register that does not parse or validate is
 * reported with its path and never overwritten.
 */
import { join } from "../util/posix_path.ts";
import { withFileLock, writeFileAtomic } from "../util/atomic.ts";
import { localDir } from "../util/dirs.ts";
import { readTextCapped } from "../util/fs.ts";
import { type Job, type Register, RegisterSchema } from "./schema.ts";

/** A register past this size is refused (1,000 jobs with full histories stay far below it). */
export const REGISTER_MAX_BYTES = 64 << 20;

/** `.svc/jobs.json` of a worktree. */
export function registerPath(worktree: string): string {
  return join(localDir(worktree), "jobs.json");
}

/** A register that cannot be used as it is; its message names the file and what to do. */
export class RegisterError extends Error {
  override name = "RegisterError";
}

async function readRegisterFile(path: string): Promise<Register> {
  let text: string;
  try {
    text = (await readTextCapped(path, REGISTER_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { jobs: [] };
    throw new RegisterError(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!text.trim()) return { jobs: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RegisterError(
      `${path} is not valid JSON (${(err as Error).message}); fix or move it, svc will not ` +
        "overwrite it",
    );
  }
  const parsed = RegisterSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    throw new RegisterError(
      `${path} is not a valid job register: ${where}: ${issue.message}; fix or move it, svc will ` +
        "not overwrite it",
    );
  }
  const names = new Set<string>();
  for (const job of parsed.data.jobs) {
    if (names.has(job.name)) {
      throw new RegisterError(`${path} lists the job "${job.name}" twice; remove one entry`);
    }
    names.add(job.name);
  }
  return parsed.data;
}

/** The register as it is now (no lock: a reader sees the last complete write). */
export function readRegister(worktree: string): Promise<Register> {
  return readRegisterFile(registerPath(worktree));
}

/**
 * Changes the register under its lock: `change` gets the current jobs (sorted by name) and may
 * mutate them in place (add to or remove from the list); the list is written back sorted by name,
 * only when it changed. Returns what `change` returned.
 */
export async function updateRegister<T>(
  worktree: string,
  change: (jobs: Job[]) => T | Promise<T>,
): Promise<T> {
  const path = registerPath(worktree);
  await Deno.mkdir(localDir(worktree), { recursive: true });
  return await withFileLock(path, async () => {
    const register = await readRegisterFile(path);
    const jobs = register.jobs.sort(byName);
    const before = JSON.stringify({ jobs }, null, 2) + "\n";
    const result = await change(jobs);
    jobs.sort(byName);
    const after = JSON.stringify({ jobs }, null, 2) + "\n";
    if (after !== before) await writeFileAtomic(path, after);
    return result;
  });
}

/** Changes one job under the register's lock; throws a RegisterError when there is none. */
export function updateJob<T>(
  { worktree, name }: { worktree: string; name: string },
  change: (job: Job, jobs: Job[]) => T | Promise<T>,
): Promise<T> {
  return updateRegister(worktree, (jobs) => {
    const job = jobs.find((j) => j.name === name);
    if (!job) throw new RegisterError(noSuchJob(name, jobs));
    return change(job, jobs);
  });
}

/** The message for an unknown job name, listing the known ones. */
export function noSuchJob(name: string, jobs: readonly Job[]): string {
  const known = jobs.map((j) => j.name).join(", ") || "none";
  return `no job named "${name}" (jobs: ${known}); add it with svc jobs add ${name}`;
}

function byName(a: Job, b: Job): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
