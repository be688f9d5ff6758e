import type { EngineEvent, TurnResult } from "../runtime/mod.ts";
import {
  checkSessionName,
  type HeadlessSetup,
  prepareHeadless,
  setupFailure,
} from "../runtime/headless.ts";
import { Runtime } from "../runtime/runtime.ts";
import { type Approver, fixedApprover } from "../tool/approval.ts";
import { CoalescedWriter } from "../util/coalesced_writer.ts";
import { readBodyCapped } from "../util/read_body.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { renderTextEvent } from "./render_text.ts";
import { USAGE_EXIT } from "./usage.ts";

/** Flags of `svc run`. */
export interface RunFlags {
  prompt?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  output: "json" | "text";
  verbose?: boolean;
  sessionId?: string;
  yes?: boolean;
  no?: boolean;
  approveModel?: boolean;
  path?: string;
  type?: string;
  team?: string;
}

/** Exit code of `svc run` for a turn status. */
function exitCodeFor(status: TurnResult["status"]): number {
  if (status === "ok" || status === "truncated") return 0;
  if (status === "cancelled") return 130;
  return 1;
}

/** A prompt read from standard input past this size is refused (no model takes it anyway). */
export const MAX_PROMPT_BYTES = 16 << 20;

/** Signals that cancel the turn like Ctrl-C, with their numbers for the exit code. */
const STOP_SIGNALS = { SIGHUP: 1, SIGTERM: 15 } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

/** Runs one headless turn for `svc run` and returns the exit code. */
export async function runOnce(words: string[], flags: RunFlags): Promise<number> {
  const asked = await promptOf(words, flags);
  if ("problem" in asked) return usage(asked.problem);
  const { prompt } = asked;
  const json = flags.output === "json";
  // --yes approves each ask-gated call, --no refuses it; both are the flag's decision.
  const approver: Approver | undefined = flags.yes
    ? fixedApprover({ answer: "once", by: "flag" })
    : flags.no
    ? fixedApprover({ answer: "deny", by: "flag" })
    : undefined;
  let setup: HeadlessSetup;
  try {
    const runtime = await Runtime.load(flags);
    for (const warning of runtime.warnings) console.error(`warning: ${visibleControls(warning)}`);
    // Plugin services start before the engine (MCP servers with autoconnect); say what failed.
    for (const warning of await runtime.start()) {
      console.error(`warning: ${visibleControls(warning)}`);
    }
    const { sessionId, type, team } = flags;
    setup = await prepareHeadless(runtime, { prompt, sessionId, type, team, approver });
  } catch (err) {
    return failEarly((err as Error).message, json, flags);
  }
  if (setup.kind === "unknown") return usage(setup.message);
  if (setup.kind === "session_write") {
    return failEarly(setup.message, json, { ...flags, sessionId: setup.session }, "session_write");
  }
  const controller = new AbortController();
  const signals = cancelOnSignals(controller);
  // The answer streams in batches (one write per frame); anything else printed flushes it first,
  // so stdout and stderr keep their order on a terminal.
  const stdout = new CoalescedWriter((bytes) => Deno.stdout.writeSync(bytes));
  const write = (text: string) => stdout.write(text);
  const onEvent = json
    ? (event: EngineEvent) => flags.verbose && renderTextEvent(event, { verbose: true, out: null })
    : (event: EngineEvent) => {
      if (event.type !== "token") stdout.flush();
      renderTextEvent(event, { verbose: Boolean(flags.verbose), out: write });
    };
  try {
    const { result, team } = await setup.run({
      signal: controller.signal,
      onEvent,
      onStage: ({ stage, of, type, report }) => {
        stdout.flush();
        console.error(
          report
            ? `svc run: stage ${stage}/${of} ${type}: ${report.status} in ${
              report.duration.toFixed(1)
            } s (session ${report.session})`
            : `svc run: stage ${stage}/${of} ${type}: running`,
        );
      },
    });
    stdout.flush();
    if (team && !json) {
      if (result.content) write(visibleControls(result.content));
      if (team.memory) console.error(`svc run: team memory written to ${team.memory}`);
    }
    if (json) console.log(JSON.stringify(result, null, 2));
    else if (result.content && !result.content.endsWith("\n")) write("\n");
    stdout.flush();
    if (!json && result.status !== "ok") console.error(`status: ${result.status}`);
    const stopSignal = signals.stopSignal();
    if (stopSignal && result.status === "cancelled") return 128 + STOP_SIGNALS[stopSignal];
    return exitCodeFor(result.status);
  } finally {
    stdout.flush();
    signals.remove();
  }
}

/** The prompt of `svc run` from its flags, its words or standard input, or what is wrong. */
async function promptOf(
  words: string[],
  flags: RunFlags,
): Promise<{ prompt: string } | { problem: string }> {
  if (flags.yes && flags.no) return { problem: "--yes and --no cannot be combined" };
  if (flags.type && flags.team) {
    return {
      problem: "--type and --team cannot be combined (a team's stages have their own types)",
    };
  }
  if (flags.prompt !== undefined && words.length) {
    const extra = JSON.stringify(words.join(" "));
    return {
      problem: `give the prompt with --prompt or as words, not both (extra words: ${extra})`,
    };
  }
  let prompt = flags.prompt ?? words.join(" ");
  if (prompt === "-") {
    const read = await readBodyCapped(new Response(Deno.stdin.readable), MAX_PROMPT_BYTES);
    if (read.truncated) {
      return { problem: `the prompt on standard input is over ${MAX_PROMPT_BYTES >> 20} MiB` };
    }
    prompt = read.text;
  }
  if (!prompt.trim()) return { problem: 'a prompt is required: svc run --prompt "..."' };
  if (flags.sessionId) {
    const problem = checkSessionName(flags.sessionId);
    if (problem) return { problem: `--session-id: ${problem}` };
  }
  return { prompt };
}

/**
 * Ctrl-C aborts `controller` (a second one exits at once); SIGTERM and SIGHUP (a timeout, a
 * closed terminal) cancel the turn the same way, so the partial answer is saved, and the exit
 * code is then 128 + the signal number. `remove` takes the listeners away.
 */
function cancelOnSignals(
  controller: AbortController,
): { stopSignal: () => StopSignal | null; remove: () => void } {
  let interrupts = 0;
  let stopSignal: StopSignal | null = null;
  const onSigint = () => {
    if (++interrupts > 1) Deno.exit(130);
    controller.abort();
    console.error("\ncancelling (Ctrl-C again to quit at once)");
  };
  const onStop = (signal: StopSignal) => () => {
    stopSignal ??= signal;
    controller.abort();
  };
  const stops = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((s) => [s, onStop(s)] as const);
  Deno.addSignalListener("SIGINT", onSigint);
  for (const [signal, listener] of stops) Deno.addSignalListener(signal, listener);
  return {
    stopSignal: () => stopSignal,
    remove: () => {
      Deno.removeSignalListener("SIGINT", onSigint);
      for (const [signal, listener] of stops) Deno.removeSignalListener(signal, listener);
    },
  };
}

function usage(message: string): number {
  console.error(`svc run: ${visibleControls(message)}`);
  return USAGE_EXIT;
}

function failEarly(message: string, json: boolean, flags: RunFlags, code = "setup"): number {
  console.error(`svc run: ${visibleControls(message)}`);
  if (json) {
    const result = setupFailure({ code, message }, {
      model: flags.model,
      provider: flags.provider,
      session: flags.sessionId,
    });
    console.log(JSON.stringify(result, null, 2));
  }
  return 1;
}
