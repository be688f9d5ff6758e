import type { EngineEvent, TurnResult } from "../runtime/mod.ts";
import type { StructuredAnswer } from "../runtime/structured.ts";
import {
  checkSessionName,
  type HeadlessRunOptions,
  type HeadlessSetup,
  prepareHeadless,
  setupFailure,
} from "../runtime/headless.ts";
import { Runtime } from "../runtime/runtime.ts";
import { type Approver, fixedApprover } from "../tool/approval.ts";
import type { ToolImage } from "../tool/types.ts";
import { CoalescedWriter } from "../util/coalesced_writer.ts";
import { readBodyCapped } from "../util/read_body.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { renderTextEvent } from "./render_text.ts";
import { StreamJsonOutput } from "./stream_json.ts";
import { type StructuredFlags, structuredOf } from "./structured_flags.ts";
import { type LimitFlags, limitsOf, usageLine } from "./limit_flags.ts";
import { contextFigure } from "../runtime/context_figure.ts";
import { USAGE_EXIT } from "./usage.ts";
import { type RunSessionFlags, runSessionTarget } from "./run_session.ts";
import { promptImages } from "./run_images.ts";

/** Flags of `svc run`. */
export interface RunFlags extends StructuredFlags, LimitFlags, RunSessionFlags {
  prompt?: string;
  /** `--image <file>`, repeatable: images sent with the prompt. */
  image?: string[];
  provider?: string;
  model?: string;
  baseUrl?: string;
  output: "json" | "text" | "stream-json";
  /** With `--output stream-json`: text and thinking deltas as `stream_event` lines. */
  includePartialMessages?: boolean;
  verbose?: boolean;
  yes?: boolean;
  no?: boolean;
  /** The MCP tool that answers ask-gated calls (`--yes` and `--no` override it). */
  permissionPromptTool?: string;
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

/** One `warning: ...` line on stderr; the text is untrusted (visibleControls). */
function warnLine(warning: string): void {
  console.error(`warning: ${visibleControls(warning)}`);
}

/** Runs one headless turn for `svc run` and returns the exit code. */
export async function runOnce(words: string[], flags: RunFlags): Promise<number> {
  const asked = await promptOf(words, flags);
  if ("problem" in asked) return usage(asked.problem);
  const limits = limitsOf(flags);
  if ("problem" in limits) return usage(limits.problem);
  const { prompt, structured, images } = asked;
  const target = await runSessionTarget(flags);
  if ("problem" in target) return usage(target.problem);
  const json = flags.output === "json";
  // stream-json: one JSON line per event on stdout, always ending with a result line.
  const stream = flags.output === "stream-json" ? new StreamJsonOutput(flags) : null;
  // --yes approves each ask-gated call, --no refuses it; both are the flag's decision.
  const approver: Approver | undefined = flags.yes
    ? fixedApprover({ answer: "once", by: "flag" })
    : flags.no
    ? fixedApprover({ answer: "deny", by: "flag" })
    : undefined;
  let setup: HeadlessSetup;
  try {
    // Connection warnings (no key stored, a key withheld) come when the engine connects.
    const runtime = await Runtime.load({ ...flags, warn: warnLine });
    runtime.warnings.forEach(warnLine);
    // Plugin services start before the engine (MCP servers with autoconnect); say what failed.
    const started = await runtime.start();
    stream?.warnings(started);
    started.forEach(warnLine);
    const { type, team } = flags;
    setup = await prepareHeadless(runtime, {
      prompt,
      ...target,
      type,
      team,
      approver,
      permissionPromptTool: flags.permissionPromptTool,
      structured,
      images,
      ...limits,
    });
  } catch (err) {
    return failEarly((err as Error).message, json, { ...flags, sessionId: target.sessionId });
  }
  if (setup.kind === "unknown") return usage(setup.message);
  if (setup.kind === "session_write" || setup.kind === "refused") {
    const code = setup.kind === "refused" ? setup.code : "session_write";
    return failEarly(setup.message, json, { ...flags, sessionId: setup.session }, code);
  }
  stream?.init(setup);
  const controller = new AbortController();
  const signals = cancelOnSignals(controller);
  // The answer streams in batches (one write per frame); anything else printed flushes it first,
  // so stdout and stderr keep their order on a terminal.
  const stdout = new CoalescedWriter((bytes) => Deno.stdout.writeSync(bytes));
  const write = (text: string) => stdout.write(text);
  const onEvent = eventRenderer(flags, { stream, stdout, structured: Boolean(structured) });
  try {
    const { result, team } = await setup.run({
      signal: controller.signal,
      onEvent,
      onStage: stageReporter(stdout, stream),
    });
    stdout.flush();
    if (team && !json && !stream) {
      if (result.content) write(visibleControls(result.content));
      if (team.memory) console.error(`svc run: team memory written to ${team.memory}`);
    }
    if (stream) stream.result(result);
    else if (json) console.log(JSON.stringify(result, null, 2));
    else endAnswer(result, { structured: Boolean(structured), write });
    stdout.flush();
    if (!json && result.status !== "ok") console.error(`status: ${result.status}`);
    if (flags.verbose) console.error(`${usageLine(result)}\n${contextFigure(result.context)}`);
    const stopSignal = signals.stopSignal();
    if (stopSignal && result.status === "cancelled") return 128 + STOP_SIGNALS[stopSignal];
    return exitCodeFor(result.status);
  } finally {
    stdout.flush();
    stream?.unfinished();
    signals.remove();
  }
}

/**
 * How the run's events are shown: the answer streamed to stdout as text (not with a schema: then
 * stdout is the validated JSON alone, written when the turn ends), or stream-json lines, or (json)
 * nothing on stdout; `--verbose` adds notes on stderr.
 */
function eventRenderer(
  flags: RunFlags,
  out: { stream: StreamJsonOutput | null; stdout: CoalescedWriter; structured: boolean },
): (event: EngineEvent) => void {
  const { stream, stdout } = out;
  if (flags.output === "json" || stream) {
    return (event) => {
      stream?.event(event);
      if (flags.verbose) renderTextEvent(event, { verbose: true, out: null });
    };
  }
  const write = (text: string) => stdout.write(text);
  return (event) => {
    if (event.type !== "token") stdout.flush();
    renderTextEvent(event, { verbose: Boolean(flags.verbose), out: out.structured ? null : write });
  };
}

/** A team's stages on stderr (and as stream-json svc events). */
function stageReporter(
  stdout: CoalescedWriter,
  stream: StreamJsonOutput | null,
): HeadlessRunOptions["onStage"] {
  return ({ stage, of, type, report }) => {
    stdout.flush();
    stream?.stage({ stage, of, type, report });
    console.error(
      report
        ? `svc run: stage ${stage}/${of} ${type}: ${report.status} in ${
          report.duration.toFixed(1)
        } s (session ${report.session})`
        : `svc run: stage ${stage}/${of} ${type}: running`,
    );
  };
}

/**
 * The end of a text answer: with a schema the validated JSON alone (compact, one line; nothing when
 * it never validated), else the newline the streamed answer lacks.
 */
function endAnswer(
  result: TurnResult,
  { structured, write }: { structured: boolean; write: (text: string) => void },
): void {
  if (!structured) {
    if (result.content && !result.content.endsWith("\n")) write("\n");
  } else if (result.structured_output !== undefined) {
    write(`${JSON.stringify(result.structured_output)}\n`);
  }
}

/** The prompt of `svc run` from its flags, its words or standard input, or what is wrong. */
async function promptOf(
  words: string[],
  flags: RunFlags,
): Promise<
  { prompt: string; structured?: StructuredAnswer; images: ToolImage[] } | { problem: string }
> {
  if (flags.yes && flags.no) return { problem: "--yes and --no cannot be combined" };
  if (flags.image?.length && flags.team) {
    return { problem: "--image and --team cannot be combined (a team's stages take text only)" };
  }
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
  const read = await promptImages(flags.image);
  if ("problem" in read) return read;
  const structured = await structuredOf(flags);
  return "problem" in structured ? structured : { prompt, ...structured, images: read.images };
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
  if (json || flags.output === "stream-json") {
    const result = setupFailure({ code, message }, {
      model: flags.model,
      provider: flags.provider,
      session: flags.sessionId,
    });
    if (json) console.log(JSON.stringify(result, null, 2));
    else new StreamJsonOutput(flags).result(result);
  }
  return 1;
}
