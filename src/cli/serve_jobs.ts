/**
 * The jobs of `svc serve`'s worktree for the HTTP API (src/http/jobs_routes.ts): `svc jobs
 * status|show|approve|reject|enable|disable --json` run in-process, their JSON taken as the
 * answer, and runs started through the runner `svc jobs run` and the daemon use (runJob), with
 * the server's runtime. Approvals are this process's user's, as when they type `svc jobs approve`.
 */
import type { JobChange, JobRunStart, JobsApi } from "../http/mod.ts";
import { change, show, status } from "../jobs/commands.ts";
import { readRegister } from "../jobs/mod.ts";
import { runJob } from "../jobs/runner.ts";
import type { Runtime } from "../runtime/runtime.ts";

/** The JobsApi over the jobs of `runtime`'s worktree; `log` gets the runs' progress lines. */
export function serveJobs(
  runtime: Runtime,
  options: { log?: (line: string) => void } = {},
): JobsApi {
  const worktree = runtime.worktree;
  const known = async (name: string) =>
    (await readRegister(worktree)).jobs.some((job) => job.name === name);
  const captured = async (run: (out: (text: string) => void) => Promise<void>) => {
    let text = "null";
    await run((printed) => text = printed);
    return JSON.parse(text);
  };
  const runs = backgroundRuns(runtime, options.log ?? (() => {}));
  return {
    status: () => captured((out) => status(worktree, { json: true, out })),
    show: async (name) =>
      await known(name) ? await captured((out) => show(worktree, name, { json: true, out })) : null,
    change: async (name, what: JobChange) =>
      await known(name)
        ? await captured((out) => change(worktree, { json: true, out, what, name }))
        : null,
    run: async (name) => await known(name) ? await runs.start(name) : null,
    busySessions: async () => {
      const busy = new Map<string, string>();
      for (const job of (await readRegister(worktree)).jobs) {
        if (job.state !== "executing") continue;
        for (const attempt of job.history) {
          if (attempt.ended_at === null && attempt.session) busy.set(attempt.session, job.name);
        }
      }
      return busy;
    },
    close: runs.close,
  };
}

/**
 * Runs started over HTTP: each a manual run that keeps the approval gate (`approvedOnly`), in the
 * background once started; `close` cancels them (saved as cancelled) and waits for them to end.
 */
function backgroundRuns(runtime: Runtime, log: (line: string) => void) {
  const stop = new AbortController();
  const running = new Set<Promise<unknown>>();
  return {
    start(name: string): Promise<JobRunStart> {
      if (stop.signal.aborted) {
        return Promise.resolve({ refused: "the server is shutting down" });
      }
      return new Promise<JobRunStart>((resolve) => {
        const done = runJob({
          worktree: runtime.worktree,
          name,
          by: "manual",
          approvedOnly: true,
          runtime: () => Promise.resolve(runtime),
          signal: stop.signal,
          onStarted: ({ run, session }) => resolve({ name, run, session }),
          log: (line) => log(line),
        }).then((report) => {
          if ("refused" in report) return resolve({ refused: report.refused });
          const why = report.error ?? (report.reason ? `truncated: ${report.reason}` : "");
          log(`job ${name} run ${report.run}: ${report.state}${why ? ` (${why})` : ""}`);
        }, (err) => {
          log(`job ${name}: the run failed: ${(err as Error).message}`);
          resolve({ refused: `the run could not start: ${(err as Error).message}` });
        }).finally(() => running.delete(done));
        running.add(done);
      });
    },
    async close(): Promise<void> {
      stop.abort();
      await Promise.all(running);
    },
  };
}
