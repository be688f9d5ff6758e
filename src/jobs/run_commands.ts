/**
 * `svc jobs run` (one run now) and `svc jobs daemon` (fire due jobs until a signal). The runtime
 * is imported on the first run: an idle daemon never loads the engine or the plugins.
 */
import type { EngineEvent, HeadlessInfo, TurnError, TurnResult } from "../runtime/mod.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RunObserver } from "./attempts.ts";
import type { JobsOutput } from "./commands.ts";
import { runDaemon } from "./daemon.ts";
import { runJob, type RunReport } from "./runner.ts";
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

/**
 * The writer of `svc jobs run --output stream-json`: the CLI's StreamJsonOutput, the one writer
 * `svc run --output stream-json` uses (the lines are mapped by src/runtime/stream_json.ts).
 */
export interface RunStream {
  /** What `runtime.start()` warned of. */
  warnings(list: readonly string[]): void;
  /** The `system` / `init` line. */
  init(setup: { session: string; info: HeadlessInfo }): void;
  event(event: EngineEvent): void;
  /** A `system` / `svc_event` line of the front-end's own (attempts, the job run). */
  svcEvent(event: { type: string } & Record<string, unknown>): void;
  /** The last line; later calls write nothing. */
  result(result: TurnResult): void;
  /** A result line for a run that ended without a turn result (or nothing after `result`). */
  unfinished(error?: TurnError): void;
}

/** Options of `svc jobs run`. */
export interface RunOptions extends JobsOutput {
  /** false: one attempt, whatever the job's retries. */
  retry?: boolean;
  /** Attempts and status lines on standard error. */
  verbose?: boolean;
  /** The turns' events (the CLI passes them with `--verbose` or `--output stream-json`). */
  onEvent?: (event: EngineEvent) => void;
  /** `--output stream-json`: stdout is this stream's lines alone (`json` is then ignored). */
  stream?: RunStream;
}

/** `svc jobs run <name>`: one run now (the approval gate overridden); exit 0 when verified. */
export async function runNow(worktree: string, name: string, options: RunOptions): Promise<number> {
  const { Runtime } = await import("../runtime/runtime.ts");
  let runtime: Promise<Runtime> | undefined;
  const stream = options.stream;
  const load = () =>
    runtime ??= Runtime.load({
      path: worktree,
      warn: (warning) => console.error(`warning: ${warning}`),
    }).then(async (r) => {
      for (const warning of r.warnings) console.error(`warning: ${warning}`);
      // Plugin services start before the first engine (MCP servers with autoconnect).
      const started = await r.start();
      stream?.warnings(started);
      for (const warning of started) console.error(`warning: ${warning}`);
      return r;
    });
  const observer = stream ? streamObserver(stream) : undefined;
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
      onEvent: options.onEvent,
      observer,
      log: options.verbose ? (line) => console.error(`svc jobs run: ${line}`) : undefined,
    });
    if ("refused" in report) {
      console.error(`svc jobs run: ${report.refused}`);
      stream?.unfinished({ code: "refused", message: report.refused });
      return 1;
    }
    if (stream) endStream(stream, { report, last: observer?.last });
    else if (options.json) (options.out ?? console.log)(JSON.stringify(report, null, 2));
    else if (report.output) console.log(report.output.trimEnd());
    if (!options.json || stream) {
      const why = report.error ?? (report.reason ? `truncated: ${report.reason}` : "");
      console.error(
        `svc jobs run: ${name} run ${report.run}: ${report.state}` +
          (why ? ` (${why})` : "") +
          (report.session ? `; session ${report.session}` : ""),
      );
    }
    return report.verified ? 0 : 1;
  } finally {
    stream?.unfinished();
    release();
    if (runtime) (await runtime.catch(() => null))?.plugins.close();
  }
}

/**
 * The attempts in the stream: the first engine's `init` line, then each attempt's start and end as
 * svc events; the last attempt's turn result is kept for the `result` line.
 */
function streamObserver(stream: RunStream): RunObserver & { last?: TurnResult } {
  const observer: RunObserver & { last?: TurnResult } = {
    ready: ({ attempt, total, session, info }) => {
      if (attempt === 1) stream.init({ session, info });
      stream.svcEvent({ type: "attempt", attempt, of: total });
    },
    ended: ({ attempt, total, result }) => {
      observer.last = result;
      const { status, reason } = result;
      stream.svcEvent({ type: "attempt", attempt, of: total, status, reason });
    },
  };
  return observer;
}

/**
 * The job run as an svc event, then the `result` line: the last attempt's turn result, or a
 * setup error when no turn ran (the task file gone, a refused model).
 */
function endStream(stream: RunStream, { report, last }: { report: RunReport; last?: TurnResult }) {
  const { name, run, state, attempts, verified, error, session, memory } = report;
  stream.svcEvent({
    type: "job_run",
    name,
    run,
    state,
    attempts,
    verified,
    error,
    session,
    memory,
  });
  if (last) stream.result(last);
  else stream.unfinished({ code: "setup", message: error ?? "the run ended without a turn" });
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
        const warn = (w: string) => console.error(`svc jobs daemon: warning: ${w}`);
        const runtime = await Runtime.load({ path: worktree, warn });
        runtime.warnings.forEach(warn);
        (await runtime.start()).forEach(warn);
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
