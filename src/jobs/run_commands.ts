/**
 * `svc jobs run` (one run now) and `svc jobs daemon` (fire due jobs until a signal). The runtime
 * is imported on the first run: an idle daemon never loads the engine or the plugins.
 */
import type { EngineEvent } from "../runtime/mod.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { JobsOutput } from "./commands.ts";
import { runDaemon } from "./daemon.ts";
import { runJob } from "./runner.ts";
import { systemdUnit } from "./unit.ts";

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

/** Options of `svc jobs run`. */
export interface RunOptions extends JobsOutput {
  /** false: one attempt, whatever the job's retries. */
  retry?: boolean;
  /** Attempts and status lines on standard error, and `onEvent` for the turn's events. */
  verbose?: boolean;
  onEvent?: (event: EngineEvent) => void;
}

/** `svc jobs run <name>`: one run now (the approval gate overridden); exit 0 when verified. */
export async function runNow(worktree: string, name: string, options: RunOptions): Promise<number> {
  const { Runtime } = await import("../runtime/runtime.ts");
  let runtime: Promise<Runtime> | undefined;
  const load = () =>
    runtime ??= Runtime.load({ path: worktree }).then((r) => {
      for (const warning of r.warnings) console.error(`warning: ${warning}`);
      return r;
    });
  const controller = new AbortController();
  const release = onStop(controller, "svc jobs run");
  try {
    const report = await runJob({
      worktree,
      name,
      by: "manual",
      runtime: load,
      noRetry: options.retry === false,
      signal: controller.signal,
      onEvent: options.verbose ? options.onEvent : undefined,
      log: options.verbose ? (line) => console.error(`svc jobs run: ${line}`) : undefined,
    });
    if ("refused" in report) {
      console.error(`svc jobs run: ${report.refused}`);
      return 1;
    }
    if (options.json) (options.out ?? console.log)(JSON.stringify(report, null, 2));
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

/** `svc jobs daemon`: runs until SIGINT or SIGTERM; `printUnit` prints a systemd user unit. */
export async function daemon(
  worktree: string,
  options: { tickSeconds: number; printUnit?: boolean },
): Promise<number> {
  const tick = options.tickSeconds;
  if (options.printUnit) {
    console.log(systemdUnit(worktree, tick));
    return 0;
  }
  const controller = new AbortController();
  const release = onStop(controller, "svc jobs daemon");
  try {
    const result = await runDaemon({
      worktree,
      tickSeconds: tick,
      signal: controller.signal,
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
