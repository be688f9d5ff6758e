/**
 * The jobs of `svc serve`'s worktree for the HTTP API (src/http/jobs_routes.ts): `svc jobs
 * status|show|approve|reject|enable|disable --json` run in-process, their JSON taken as the
 * answer. Approvals are this process's user's, as when they type `svc jobs approve`.
 */
import type { JobChange, JobsApi } from "../http/mod.ts";
import { change, show, status } from "../jobs/commands.ts";
import { readRegister } from "../jobs/mod.ts";

/** The JobsApi over `worktree`'s jobs. */
export function serveJobs(worktree: string): JobsApi {
  const known = async (name: string) =>
    (await readRegister(worktree)).jobs.some((job) => job.name === name);
  const captured = async (run: (out: (text: string) => void) => Promise<void>) => {
    let text = "null";
    await run((printed) => text = printed);
    return JSON.parse(text);
  };
  return {
    status: () => captured((out) => status(worktree, { json: true, out })),
    show: async (name) =>
      await known(name) ? await captured((out) => show(worktree, name, { json: true, out })) : null,
    change: async (name, what: JobChange) =>
      await known(name)
        ? await captured((out) => change(worktree, { json: true, out, what, name }))
        : null,
  };
}
