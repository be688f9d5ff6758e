import { Command, Option } from "commander";
import type { EngineEvent, TurnResult } from "../engine/events.ts";
import type { Approver } from "../engine/context_types.ts";
import { SessionStore } from "../session/store.ts";
import { checkSessionName, interactiveName } from "../session/naming.ts";
import { composeEngine } from "./compose.ts";
import { renderTextEvent } from "./render_text.ts";

interface RunFlags {
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
export function exitCodeFor(status: TurnResult["status"]): number {
  if (status === "ok" || status === "truncated") return 0;
  if (status === "cancelled") return 130;
  return 1;
}

/** `svc run`: one headless turn, streamed as text or printed as a TurnResult. */
export function runCommand(setExit: (code: number) => void): Command {
  return new Command("run")
    .description("Run one prompt headlessly and exit (never reads stdin unless --prompt -)")
    .option("-p, --prompt <text>", "the prompt; - reads it from standard input")
    .option("--provider <id>", "provider id (openai, anthropic, openrouter, generic, ...)")
    .option("--model <model>", "model id or provider/model ref (auto-approved)")
    .option("--base-url <url>", "backend address (the provider is detected from it)")
    .addOption(
      new Option("--output <format>", "output format").choices(["text", "json"]).default("text"),
    )
    .option("--verbose", "show thinking, tool results and status lines on stderr")
    .option("--session-id <name>", "load or create this persistent session")
    .option("--yes", "approve ask-gated tool calls")
    .option("--no", "deny ask-gated tool calls explicitly (the default when headless)")
    .option("--approve-model", "approve a model named by an agent type or team")
    .option("--path <dir>", "worktree (default: the current directory)")
    .argument("[prompt...]", "the prompt, when --prompt is not given")
    .action(async (words: string[], flags: RunFlags) => {
      setExit(await runOnce(words, flags));
    });
}

async function runOnce(words: string[], flags: RunFlags): Promise<number> {
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
