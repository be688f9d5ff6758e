/**
 * The editor's terminal for svc's unsandboxed commands (`terminal/*`, when the client offers
 * `terminal`): `runShell` hands a command here only when svc's OS sandbox would not hold it, so
 * the editor shows it running in its own terminal. The timeout and a cancelled turn kill it; the
 * terminal is released once its output is read.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { TerminalRunner } from "../tool/types.ts";

/** The output the editor keeps of one command (the tail beyond it is dropped). */
export const OUTPUT_LIMIT = 1 << 20;

/** Signal numbers of the names an editor reports, for the exit code 128 + n. */
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** A runner over the editor's terminals; `started` hears each terminal's id as it is created. */
export function editorTerminal(
  client: Pick<acp.AgentContext, "createTerminal">,
  options: { sessionId: string; started(terminalId: string): void },
): TerminalRunner {
  return async (run) => {
    const handle = await client.createTerminal({
      sessionId: options.sessionId,
      command: run.program,
      args: run.args,
      cwd: run.cwd,
      env: Object.entries(run.env).map(([name, value]) => ({ name, value })),
      outputByteLimit: OUTPUT_LIMIT,
    });
    options.started(handle.id);
    let timedOut = false;
    let cancelled = false;
    const kill = () => void handle.kill().catch(() => {});
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, run.timeoutS * 1000);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    run.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const exit = await handle.waitForExit();
      const { output } = await handle.currentOutput();
      const code = typeof exit.exitCode === "number"
        ? exit.exitCode
        : exit.signal
        ? 128 + (SIGNALS[exit.signal] ?? 0)
        : -1;
      return { code, output, timedOut, cancelled };
    } finally {
      clearTimeout(timer);
      run.signal.removeEventListener("abort", onAbort);
      await handle.release().catch(() => {});
    }
  };
}
