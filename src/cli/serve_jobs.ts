/**
 * The jobs of `svc serve`'s worktree for the HTTP API (src/http/jobs_routes.ts): `svc jobs
 * status|show|approve|reject|enable|disable --json` run in-process, their JSON taken as the
 * answer, and runs started through the runner `svc jobs run` and the daemon use (runJob), with
 * the server's runtime. Approvals are this process's user's, as when they type `svc jobs approve`.
 */
import type { JobChange, JobRunStart, JobsApi } from "../http/mod.ts";
import type { Runtime } from "../runtime/runtime.ts";

/**
 * The jobs modules, imported on the first jobs request: they bring zod and the register's
 * schemas (about 890 KiB of the build), which an idle server or a fleet agent that is never asked
 * about jobs need not hold (docs/performance.md, ninth round).
 */
let jobsModules: ReturnType<typeof importJobs> | undefined;
async function importJobs() {
  const [commands, register, runner] = await Promise.all([
    import("../jobs/commands.ts"),
    import("../jobs/mod.ts"),
    import("../jobs/runner.ts"),
  ]);
  return { commands, register, runner };
}
function loadJobs() {
  return jobsModules ??= importJobs();
}

/** The JobsApi over the jobs of `runtime`'s worktree; `log` gets the runs' progress lines. */
export function serveJobs(
  runtime: Runtime,
  options: { log?: (line: string) => void } = {},
): JobsApi {
  const worktree = runtime.worktree;
  const register = async () => (await (await loadJobs()).register.readRegister(worktree)).jobs;
  const known = async (name: string) => (await register()).some((job) => job.name === name);
  const captured = async (run: (out: (text: string) => void) => Promise<void>) => {
    let text = "null";
    await run((printed) => text = printed);
    return JSON.parse(text);
  };
  const runs = backgroundRuns(runtime, options.log ?? (() => {}));
  return {
    status: async () => {
      const { status } = (await loadJobs()).commands;
      return captured((out) => status(worktree, { json: true, out }));
    },
    show: async (name) => {
      const { show } = (await loadJobs()).commands;
      return await known(name)
        ? await captured((out) => show(worktree, name, { json: true, out }))
        : null;
    },
    change: async (name, what: JobChange) => {
      const { change } = (await loadJobs()).commands;
      return await known(name)
        ? await captured((out) => change(worktree, { json: true, out, what, name }))
        : null;
    },
    run: async (name) => await known(name) ? await runs.start(name) : null,
    busySessions: async () => {
      const busy = new Map<string, string>();
      for (const job of await register()) {
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
    async start(name: string): Promise<JobRunStart> {
      const { runJob } = (await loadJobs()).runner;
      // Checked after the import, in the same step as the run joins `running`, so `close` waits
      // for every run it did not refuse.
      if (stop.signal.aborted) return { refused: "the server is shutting down" };
      return await new Promise<JobRunStart>((resolve) => {
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
