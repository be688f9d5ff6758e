import type { EngineEvent, TurnResult } from "../engine/events.ts";
import type { Approver } from "../engine/context_types.ts";
import { SessionStore } from "../session/store.ts";
import { readBodyCapped } from "../util/read_body.ts";
import { checkSessionName, interactiveName } from "../session/naming.ts";
import { composeEngine } from "./compose.ts";
import { renderTextEvent } from "./render_text.ts";

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
  if (flags.yes && flags.no === false) return usage("--yes and --no cannot be combined");
  let prompt = flags.prompt ?? words.join(" ");
  if (prompt === "-") {
    const read = await readBodyCapped(new Response(Deno.stdin.readable), MAX_PROMPT_BYTES);
    if (read.truncated) {
      return usage(`the prompt on standard input is over ${MAX_PROMPT_BYTES >> 20} MiB`);
    }
    prompt = read.text;
  }
  if (!prompt.trim()) return usage('a prompt is required: svc run --prompt "..."');
  if (flags.sessionId) {
    const problem = checkSessionName(flags.sessionId);
    if (problem) return usage(`--session-id: ${problem}`);
  }
  const json = flags.output === "json";
  const approve: Approver | undefined = flags.yes ? () => Promise.resolve(true) : undefined;
  let composed;
  try {
    composed = await composeEngine(flags, { approve });
  } catch (err) {
    return failEarly((err as Error).message, json, flags);
  }
  for (const warning of composed.warnings) console.error(`warning: ${warning}`);
  let session;
  try {
    const store = new SessionStore(composed.worktree, { confine: !composed.trusted });
    session = flags.sessionId
      ? await store.openOrCreate(flags.sessionId)
      : store.create(interactiveName(new Date(), prompt));
  } catch (err) {
    return failEarly((err as Error).message, json, flags);
  }
  const controller = new AbortController();
  let interrupts = 0;
  let stopSignal: StopSignal | null = null;
  const onSigint = () => {
    if (++interrupts > 1) Deno.exit(130);
    controller.abort();
    console.error("\ncancelling (Ctrl-C again to quit at once)");
  };
  // SIGTERM and SIGHUP (a timeout, a closed terminal) cancel the turn the same way, so the
  // partial answer is saved, then exit with 128 + the signal number.
  const onStop = (signal: StopSignal) => () => {
    stopSignal ??= signal;
    controller.abort();
  };
  const stops = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((s) => [s, onStop(s)] as const);
  Deno.addSignalListener("SIGINT", onSigint);
  for (const [signal, listener] of stops) Deno.addSignalListener(signal, listener);
  const encoder = new TextEncoder();
  const write = (text: string) => Deno.stdout.writeSync(encoder.encode(text));
  const onEvent = json
    ? (event: EngineEvent) => flags.verbose && renderTextEvent(event, { verbose: true, out: null })
    : (event: EngineEvent) =>
      renderTextEvent(event, { verbose: Boolean(flags.verbose), out: write });
  try {
    const result = await composed.engine.runTurn(prompt, {
      session,
      signal: controller.signal,
      onEvent,
    });
    if (json) console.log(JSON.stringify(result, null, 2));
    else if (result.content && !result.content.endsWith("\n")) write("\n");
    if (!json && result.status !== "ok") console.error(`status: ${result.status}`);
    if (stopSignal && result.status === "cancelled") return 128 + STOP_SIGNALS[stopSignal];
    return exitCodeFor(result.status);
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    for (const [signal, listener] of stops) Deno.removeSignalListener(signal, listener);
  }
}

function usage(message: string): number {
  console.error(`svc run: ${message}`);
  return 2;
}

function failEarly(message: string, json: boolean, flags: RunFlags): number {
  console.error(`svc run: ${message}`);
  if (json) {
    const result: TurnResult = {
      content: "",
      thinking: "",
      tool_calls: [],
      errors: [{ code: "setup", message }],
      duration: 0,
      usage: null,
      model: flags.model ?? "",
      provider: flags.provider ?? "",
      session: flags.sessionId ?? "",
      status: "error",
    };
    console.log(JSON.stringify(result, null, 2));
  }
  return 1;
}
