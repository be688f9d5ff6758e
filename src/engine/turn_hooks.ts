/**
 * The hooks of a turn (docs/hooks.md): UserPromptSubmit before the prompt is taken (it may block
 * the prompt or add context), Stop (SubagentStop for a sub-agent) when the model answers (a
 * `decision: "block"` sends its reason back to the model and the turn goes on), PreCompact before
 * a compaction.
 */
import type { SessionLog } from "../session/log.ts";
import type { HookEvent, HookOutcome, HookSession } from "../tool/hooks.ts";
import type { EngineDeps } from "./deps.ts";
import type { EngineEvent } from "./events.ts";

/** How a turn's hooks report. */
export interface TurnHookEnv {
  session: SessionLog;
  signal: AbortSignal;
  emit(event: EngineEvent): void;
}

/** What UserPromptSubmit said: the prompt is blocked (with why), or context to add. */
export interface PromptGate {
  blocked?: string;
  context?: string;
}

/** Runs an event's hooks for an engine, reporting their notices as warnings; null when none. */
export async function runEngineHooks(
  deps: Pick<EngineDeps, "hooks" | "config">,
  event: HookEvent,
  options: TurnHookEnv & { fields: Record<string, unknown>; match?: string[] },
): Promise<HookOutcome | null> {
  const { fields, match, ...env } = options;
  if (!deps.hooks?.has(event)) return null;
  const outcome = await deps.hooks.run(event, {
    permission_mode: deps.config.mode === "plan" ? "plan" : "default",
    ...fields,
  }, { session: hookSession(env.session), signal: env.signal, match });
  for (const message of outcome.notices) env.emit({ type: "warning", message });
  return outcome;
}

/** The UserPromptSubmit hooks of a prompt. */
export async function promptHooks(
  deps: Pick<EngineDeps, "hooks" | "config">,
  env: TurnHookEnv & { prompt: string },
): Promise<PromptGate> {
  const outcome = await runEngineHooks(deps, "UserPromptSubmit", {
    ...env,
    fields: { prompt: env.prompt },
  });
  if (!outcome) return {};
  const blocked = outcome.blocks[0] ?? outcome.stop;
  if (blocked !== undefined) return { blocked };
  return outcome.context.length ? { context: outcome.context.join("\n") } : {};
}

/**
 * The Stop (or, for a sub-agent, SubagentStop) hooks of an answer: the reason to go on when one
 * blocks the stop, written into the session for the model; undefined to end the turn.
 */
export async function stopHooks(
  deps: Pick<EngineDeps, "hooks" | "config" | "depth">,
  env: TurnHookEnv & { active: boolean },
): Promise<string | undefined> {
  const event = deps.depth > 0 ? "SubagentStop" : "Stop";
  const outcome = await runEngineHooks(deps, event, {
    session: env.session,
    signal: env.signal,
    emit: env.emit,
    fields: { stop_hook_active: env.active },
  });
  const reason = outcome?.stop === undefined ? outcome?.blocks[0] : undefined;
  if (reason === undefined || env.signal.aborted) return undefined;
  await env.session.appendMessage({
    role: "user",
    content: `[${event} hook] ${reason}`,
    timestamp: new Date().toISOString(),
  });
  return reason;
}

/**
 * The PreCompact hooks of a compaction (`trigger` manual or auto, the matcher; `custom_instructions`
 * as the convention sends it): the reason when one blocks it (exit 2, `decision: "block"`,
 * `continue: false`), else undefined.
 */
export async function preCompactHooks(
  deps: Pick<EngineDeps, "hooks" | "config">,
  env: TurnHookEnv & { trigger: "manual" | "auto"; instructions?: string },
): Promise<string | undefined> {
  const outcome = await runEngineHooks(deps, "PreCompact", {
    session: env.session,
    signal: env.signal,
    emit: env.emit,
    fields: { trigger: env.trigger, custom_instructions: env.instructions ?? "" },
    match: [env.trigger],
  });
  return outcome ? outcome.blocks[0] ?? outcome.stop : undefined;
}

/** Context a hook added, as a system message of the session. */
export async function appendHookContext(session: SessionLog, context: string): Promise<void> {
  await session.appendMessage({
    role: "system",
    content: `[hook context]\n${context}`,
    timestamp: new Date().toISOString(),
  });
}

/** A session as hooks see it. */
export function hookSession(session: Pick<SessionLog, "name" | "path">): HookSession {
  return session.path ? { id: session.name, path: session.path } : { id: session.name };
}
