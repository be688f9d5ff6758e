import type { ChatToolCall } from "../provider/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { TurnCheckpoint } from "../session/checkpoint_record.ts";
import type { ApprovalMemory } from "../tool/approval.ts";
import { toolContext } from "../tool/context.ts";
import type { ToolHooks } from "../tool/hook_gate.ts";
import { type Invocation, type InvokeEnv, invokeTool } from "../tool/invoke.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { truncateAtLine } from "../tool/text.ts";
import type { AskRequest, ToolOutput } from "../tool/types.ts";
import type { EngineDeps } from "./deps.ts";
import type { EngineEvent, ToolCallRecord } from "./events.ts";
import { cutText } from "../util/text_cut.ts";
import { callInstructions } from "./nested_instructions.ts";

/**
 * Tool calls run per round; the rest of a longer batch are answered "not run" (in one session
 * write) so a runaway or hostile model cannot keep svc busy for minutes in a single round.
 */
export const MAX_CALLS_PER_ROUND = 64;

/** What the engine's calls of one turn share. */
export interface CallEnv {
  deps: EngineDeps;
  session: SessionLog;
  signal: AbortSignal;
  emit(event: EngineEvent): void;
  /** This turn's tool view and the canonical names offered from it. */
  view: ToolRegistry;
  offered: readonly string[];
  memory: ApprovalMemory;
  ask(request: AskRequest): Promise<string | null>;
  delegate(type: string, task: string): Promise<ToolOutput>;
  /** The turn's checkpoint (svc undo); absent where none is kept (in-memory sessions, /tool). */
  checkpoint?: TurnCheckpoint;
}

/** The invocation environment of an engine turn; `audit` is where the caller persists. */
export function engineInvokeEnv(
  env: CallEnv,
  audit: InvokeEnv["audit"],
): Omit<InvokeEnv, "onStart" | "onEnd"> {
  const { deps } = env;
  return {
    view: env.view,
    offered: env.offered,
    scope: deps,
    approver: deps.approver,
    memory: env.memory,
    session: env.session.name,
    signal: env.signal,
    audit,
    ...(deps.hooks ? { hooks: toolHooks(deps, env) } : {}),
    ...(env.checkpoint ? { beforeRun: checkpointShell(env.checkpoint) } : {}),
    context: (tool, { callId, ...call }) =>
      toolContext({
        ...call,
        worktree: deps.worktree,
        config: deps.config,
        trusted: deps.trusted,
        headless: deps.headless,
        session: env.session.name,
        signal: env.signal,
        ask: env.ask,
        elicit: deps.elicitation
          ? (request) =>
            deps.elicitation!(request, {
              session: env.session.name,
              callId,
              signal: env.signal,
              audit: (record) => env.session.appendPermission(record),
            })
          : undefined,
        delegate: env.delegate,
        status: (message) => env.emit({ type: "status", message }),
        host: tool.usesHost ? deps.tools.hostFor?.(tool) : undefined,
        beforeWrite: env.checkpoint
          ? (path) => env.checkpoint!.beforeWrite(path, tool.name)
          : undefined,
        files: deps.files,
        terminal: deps.terminal,
      }),
  };
}

/** Shell commands (`bash` category tools) are listed in the checkpoint before they run. */
function checkpointShell(checkpoint: TurnCheckpoint): InvokeEnv["beforeRun"] {
  return (tool, args) =>
    tool.category === "bash" ? checkpoint.beforeShell(tool.name, args) : Promise.resolve();
}

/** The hooks of an engine's calls: warnings go out as `warning` events. */
export function toolHooks(deps: EngineDeps, env: Pick<CallEnv, "session" | "emit">): ToolHooks {
  const { name, path } = env.session;
  return {
    runner: deps.hooks!,
    session: path ? { id: name, path } : { id: name },
    permissionMode: deps.config.mode === "plan" ? "plan" : "default",
    notice: (message) => env.emit({ type: "warning", message }),
  };
}

/** What a call of a round cut at the token cap is answered: its arguments may be cut too. */
export const TOKEN_CAP_REFUSAL = "the answer hit the token cap";

/**
 * Runs the calls of one round in order, through the one invocation path; returns the records.
 * With `refusal` none runs: each is answered "not run: <refusal>" and audited as denied.
 */
export async function runToolCalls(
  calls: readonly ChatToolCall[],
  env: CallEnv,
  refusal?: string,
): Promise<ToolCallRecord[]> {
  if (refusal !== undefined) {
    return (await Promise.all(calls.map((call) => runCall(call, env, refusal)))).map(record);
  }
  const records: ToolCallRecord[] = [];
  for (const call of calls.slice(0, MAX_CALLS_PER_ROUND)) {
    records.push(record(await runCall(call, env)));
  }
  // Every call still needs an answer; these run nothing, so they share one session write.
  const overflow = `at most ${MAX_CALLS_PER_ROUND} tool calls run per round; ` +
    "repeat the calls you still need in your next reply";
  const refused = await Promise.all(
    calls.slice(MAX_CALLS_PER_ROUND).map((call) => runCall(call, env, overflow)),
  );
  return [...records, ...refused.map(record)];
}

function runCall(call: ChatToolCall, env: CallEnv, refusal?: string): Promise<Invocation> {
  return invokeTool({ id: call.id, name: call.function.name, arguments: call.function.arguments }, {
    ...engineInvokeEnv(env, (inv) => persist(inv, env, Boolean(refusal))),
    refusal,
    onStart: (name, args) => env.emit({ type: "tool_start", call, name, args }),
    onEnd: (inv) => env.emit(toolEndEvent(inv)),
  });
}

/** The `tool_end` event of a finished invocation (the model's calls and `/tool` alike). */
export function toolEndEvent(inv: Invocation): EngineEvent {
  return {
    type: "tool_end",
    id: inv.id,
    name: inv.name,
    ok: inv.ok,
    content: inv.content,
    status: inv.status,
    decision: inv.decision,
    ...(inv.refusal ? { refusal: inv.refusal } : {}),
  };
}

function record(inv: Invocation): ToolCallRecord {
  return {
    id: inv.id,
    name: inv.name,
    arguments: inv.args,
    decision: inv.decision,
    ok: inv.ok,
    duration: inv.duration,
    ...(inv.refusal ? { refusal: inv.refusal } : {}),
  };
}

/** The audit entry and the tool message (with its analysis) share one session write. */
async function persist(inv: Invocation, env: CallEnv, refused: boolean): Promise<void> {
  const { deps, session } = env;
  const analysis = deps.config.tool_analysis && !env.signal.aborted && !refused
    ? await analyze(inv.name, inv.content, env)
    : undefined;
  // The instructions of the sub-folders the call worked in go with its result, once a session.
  const nested = refused || env.signal.aborted ? undefined : await callInstructions(inv, {
    worktree: deps.worktree,
    fileName: deps.config.project_instructions,
    messages: session.data.messages,
  });
  const annex = nested?.text ?? "";
  await Promise.all([
    session.appendPermission(inv.audit),
    session.appendMessage({
      role: "tool",
      content: persistedContent(inv, deps) + annex,
      timestamp: new Date().toISOString(),
      tool_call_id: inv.id,
      name: inv.name,
      ok: inv.ok,
      ...(analysis ? { analysis } : {}),
      ...(nested ? { instructions: nested.paths } : {}),
      ...(inv.images?.length && !isNoise(inv, deps) ? { images: inv.images } : {}),
    }, { live: inv.content + annex }),
  ]);
}

/** The call's tool is one of noise_tools (by name or alias). */
function isNoise(inv: Invocation, deps: EngineDeps): boolean {
  const noise = deps.config.noise_tools;
  const aliases = inv.tool?.aliases ?? [];
  return noise.includes(inv.name) || aliases.some((a) => noise.includes(a));
}

/** tool_analysis: a one-line, model-written note on what a result means. */
async function analyze(name: string, content: string, env: CallEnv): Promise<string | undefined> {
  const reply = await env.deps.client.chatNonStreaming({
    model: env.deps.model,
    max_tokens: 120,
    reasoning: env.deps.config.reasoning,
    messages: [
      { role: "system", content: "Summarize what this tool result shows in one short line." },
      { role: "user", content: `Tool ${name} returned:\n${cutText(content, 8000)}` },
    ],
  }, env.signal);
  return reply.error ? undefined : cutText(reply.content.split("\n")[0].trim(), 300) || undefined;
}

/** noise_tools and session_tool_max_chars shape only what is stored, never what the model saw. */
function persistedContent(inv: Invocation, deps: EngineDeps): string {
  if (isNoise(inv, deps)) {
    return `[${inv.name} result excluded from the session log (noise_tools); ${inv.content.length} characters]`;
  }
  return truncateAtLine(inv.content, deps.config.session_tool_max_chars, "stored copy capped");
}
