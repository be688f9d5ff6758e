import type { Engine } from "../engine/engine.ts";
import type { EngineEvent, TurnResult } from "../engine/events.ts";
import { turnResult } from "../engine/result.ts";
import { typeOverrides } from "../engine/sub_agent.ts";
import type { TeamRun } from "../engine/team.ts";
import type { SessionLog } from "../session/log.ts";
import { Runtime } from "../runtime/runtime.ts";
import { type Approver, fixedApprover } from "../tool/approval.ts";
import { CoalescedWriter } from "../util/coalesced_writer.ts";
import { readBodyCapped } from "../util/read_body.ts";
import { checkSessionName, interactiveName } from "../session/naming.ts";
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
  if (flags.yes && flags.no) return usage("--yes and --no cannot be combined");
  if (flags.type && flags.team) {
    return usage("--type and --team cannot be combined (a team's stages have their own types)");
  }
  if (flags.prompt !== undefined && words.length) {
    const extra = JSON.stringify(words.join(" "));
    return usage(`give the prompt with --prompt or as words, not both (extra words: ${extra})`);
  }
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
  // --yes approves each ask-gated call, --no refuses it; both are the flag's decision.
  const approver: Approver | undefined = flags.yes
    ? fixedApprover({ answer: "once", by: "flag" })
    : flags.no
    ? fixedApprover({ answer: "deny", by: "flag" })
    : undefined;
  let engine: Engine;
  let session: SessionLog;
  try {
    const runtime = await Runtime.load(flags);
    for (const warning of runtime.warnings) console.error(`warning: ${warning}`);
    // Plugin services start before the engine (MCP servers with autoconnect); say what failed.
    for (const warning of await runtime.start()) console.error(`warning: ${warning}`);
    session = flags.sessionId
      ? await runtime.sessions.openOrCreate(flags.sessionId)
      : runtime.sessions.create(interactiveName(new Date(), prompt));
    try {
      await runtime.sessions.checkWritable();
    } catch (err) {
      const message = `Could not write the session ${session.name}: ${(err as Error).message}`;
      return failEarly(message, json, { ...flags, sessionId: session.name }, "session_write");
    }
    const catalog = flags.type || flags.team ? await runtime.catalog() : undefined;
    const type = flags.type ? catalog!.types.get(flags.type) : undefined;
    if (flags.type && !type) {
      return usage(`unknown type "${flags.type}"; available types: ${names(catalog!.types)}`);
    }
    if (flags.team && !catalog!.teams.has(flags.team)) {
      return usage(`unknown team "${flags.team}"; available teams: ${names(catalog!.teams)}`);
    }
    engine = await runtime.engine({
      headless: true,
      approver,
      session,
      ...(type ? typeOverrides(runtime.config.tool_permission, type, catalog!, 0) : {}),
    });
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
    const team = flags.team
      ? await engine.runTeam(flags.team, prompt, {
        session,
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
      })
      : undefined;
    const result = team ? teamResult(team) : await engine.runTurn(prompt, {
      signal: controller.signal,
      onEvent,
    });
    stdout.flush();
    if (team && !json) {
      if (result.content) write(result.content);
      if (team.memory) console.error(`svc run: team memory written to ${team.memory}`);
    }
    if (json) console.log(JSON.stringify(result, null, 2));
    else if (result.content && !result.content.endsWith("\n")) write("\n");
    stdout.flush();
    if (!json && result.status !== "ok") console.error(`status: ${result.status}`);
    if (stopSignal && result.status === "cancelled") return 128 + STOP_SIGNALS[stopSignal];
    return exitCodeFor(result.status);
  } finally {
    stdout.flush();
    Deno.removeSignalListener("SIGINT", onSigint);
    for (const [signal, listener] of stops) Deno.removeSignalListener(signal, listener);
  }
}

/** A team run as `svc run` reports it: the last stage's TurnResult with the stages listed. */
function teamResult(run: TeamRun): TurnResult & { stages: object[] } {
  return {
    ...run.result,
    status: run.status,
    errors: run.errors,
    stages: run.stages.map(({ type, session, status, duration }) => ({
      type,
      session,
      status,
      duration,
    })),
  };
}

function names(map: ReadonlyMap<string, unknown>): string {
  return [...map.keys()].sort().join(", ") || "none";
}

function usage(message: string): number {
  console.error(`svc run: ${message}`);
  return USAGE_EXIT;
}

function failEarly(message: string, json: boolean, flags: RunFlags, code = "setup"): number {
  console.error(`svc run: ${message}`);
  if (json) {
    const result = turnResult({
      status: "error",
      errors: [{ code, message }],
      model: flags.model ?? "",
      provider: flags.provider ?? "",
      session: flags.sessionId ?? "",
    });
    console.log(JSON.stringify(result, null, 2));
  }
  return 1;
}
