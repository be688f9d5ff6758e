import type { EngineEvent, TurnResult } from "../engine/events.ts";
import type { Approver } from "../engine/context_types.ts";
import { SessionStore } from "../session/store.ts";
import { checkSessionName, interactiveName } from "../session/naming.ts";
import { composeEngine } from "./compose.ts";
import { renderTextEvent } from "./render_text.ts";
import { exitCodeFor, type RunFlags } from "./run_cmd.ts";

/** Runs one headless turn for `svc run` and returns the exit code. */
export async function runOnce(words: string[], flags: RunFlags): Promise<number> {
  if (flags.yes && flags.no === false) return usage("--yes and --no cannot be combined");
  let prompt = flags.prompt ?? words.join(" ");
  if (prompt === "-") prompt = await new Response(Deno.stdin.readable).text();
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
  const store = new SessionStore(composed.worktree);
  let session;
  try {
    session = flags.sessionId
      ? await store.openOrCreate(flags.sessionId)
      : store.create(interactiveName(new Date(), prompt));
  } catch (err) {
    return failEarly((err as Error).message, json, flags);
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) Deno.exit(130);
    controller.abort();
    console.error("\ncancelling (Ctrl-C again to quit at once)");
  };
  Deno.addSignalListener("SIGINT", onSigint);
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
    return exitCodeFor(result.status);
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
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
