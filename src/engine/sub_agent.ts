/**
 * A sub-agent: an engine derived from its lead for one agent type, run on one task in its own
 * session linked to the lead's. Delegation and team stages both run through `runSubAgent`.
 */
import type { AgentType, Catalog } from "../catalog/types.ts";
import type { ToolPermission } from "../config/schema.ts";
import { tightenPermissions } from "../config/trust.ts";
import type { SessionLog } from "../session/log.ts";
import type { EngineDeps, EngineOverrides } from "./deps.ts";
import type { EngineEvent, TurnResult } from "./events.ts";
import { turnResult } from "./result.ts";
import { cutText } from "../util/text_cut.ts";

/**
 * How deep delegation nests: a root engine's sub-agent may delegate once more, and that one's
 * sub-agent may not (its `delegate` category is deny, so the tool is not offered).
 */
export const MAX_DELEGATION_DEPTH = 2;

/** The engine a sub-agent is derived from. */
export interface LeadEngine {
  readonly deps: EngineDeps;
  derive(overrides: EngineOverrides): Promise<{
    runTurn(
      prompt: string,
      options: {
        session?: SessionLog;
        signal?: AbortSignal;
        onEvent?: (event: EngineEvent) => void;
      },
    ): Promise<TurnResult>;
  }>;
}

/** One finished sub-agent run. */
export interface SubAgentRun {
  type: string;
  session: string;
  result: TurnResult;
}

/** The system prompt of a type: its prompt, then a `## Skills` section with the skills found. */
export function typePrompt(type: AgentType, catalog: Catalog): string {
  const skills = (type.skills ?? []).flatMap((name) => {
    const skill = catalog.skills.get(name);
    return skill ? [skill] : [];
  });
  if (!skills.length) return type.system_prompt;
  const blocks = skills.map((skill) => `### ${skill.name}\n\n${skill.content.trim()}`);
  return `${type.system_prompt}\n\n## Skills\n\n${blocks.join("\n\n")}`;
}

/**
 * A sub-agent's categories: the type's over the lead's, then each `tighten` entry (an untrusted
 * worktree's local type) only where it is stricter; `delegate` is denied at the depth limit.
 */
export function subAgentPermissions(
  lead: ToolPermission,
  type: AgentType,
  { depth }: { depth: number },
): ToolPermission {
  const merged = tightenPermissions({ ...lead, ...type.tool_permission }, type.tighten);
  if (depth >= MAX_DELEGATION_DEPTH) merged.delegate = "deny";
  return merged;
}

/**
 * What makes an engine at `depth` an agent of `type`: its prompt with skills, its model (through
 * the approval gate), its permissions over `permissions`, its `tools_deny` added to `tools.deny`. Sub-agents, `svc run --type` and jobs
 * share it.
 */
export function typeOverrides(
  permissions: ToolPermission,
  type: AgentType,
  { catalog, depth }: { catalog: Catalog; depth: number },
): EngineOverrides {
  return {
    typePrompt: typePrompt(type, catalog),
    ...(type.model ? { model: type.model, modelFrom: "type" as const } : {}),
    tool_permission: subAgentPermissions(permissions, type, { depth }),
    ...(type.tools_deny?.length ? { "tools.deny": type.tools_deny } : {}),
  };
}

/**
 * The overrides of a sub-agent of `type` under `lead`: the type's prompt (with skills) and model,
 * merged permissions, headless with ask-gated calls denied, build mode unless a team stage sets
 * one (a lead in plan mode keeps its sub-agents in plan mode), the lead to consult, and the
 * lead's human channel with questions prefixed by the sub-agent's session name.
 */
export function subAgentOverrides(
  lead: EngineDeps,
  type: AgentType,
  run: { catalog: Catalog; task: string; session: SessionLog; mode?: "plan" | "build" },
): EngineOverrides {
  const askHuman = lead.askHuman;
  return {
    ...typeOverrides(lead.config.tool_permission, type, {
      catalog: run.catalog,
      depth: lead.depth + 1,
    }),
    mode: lead.config.mode === "plan" ? "plan" : run.mode ?? "build",
    headless: true,
    lead: {
      client: lead.client,
      model: lead.model,
      task: run.task,
      reasoning: lead.config.reasoning,
    },
    askHuman: askHuman
      ? (request, signal) =>
        askHuman({ ...request, question: `[${run.session.name}] ${request.question}` }, signal)
      : undefined,
    session: run.session,
  };
}

/**
 * Runs `brief` as a sub-agent of `type` under `lead`, in a new session linked to `parent`. Quiet:
 * only a status line per tool call reaches `emit`. A model the approval gate refuses (or a
 * backend that cannot be resolved) ends the run with status `error` and a `provider` error, in
 * the sub-agent's session too; it never throws for it.
 */
export async function runSubAgent(
  lead: LeadEngine,
  type: AgentType,
  run: {
    catalog: Catalog;
    brief: string;
    task: string;
    parent: SessionLog;
    mode?: "plan" | "build";
    signal: AbortSignal;
    emit: (event: EngineEvent) => void;
  },
): Promise<SubAgentRun> {
  const agents = lead.deps.agents;
  if (!agents) throw new Error("runSubAgent needs an engine built by a runtime");
  const session = await agents.openSubSession(run.parent);
  const started = performance.now();
  let engine;
  try {
    engine = await lead.derive(
      subAgentOverrides(lead.deps, type, {
        catalog: run.catalog,
        task: run.task,
        session,
        mode: run.mode,
      }),
    );
  } catch (err) {
    const error = {
      code: "provider",
      message: `${type.name}: ${(err as Error).message}`,
      at: new Date().toISOString(),
    };
    await session.appendMessage({
      role: "user",
      content: run.brief,
      timestamp: new Date().toISOString(),
    });
    await session.appendError(error);
    await session.sync();
    const result = turnResult({
      status: "error",
      reason: "setup_error",
      errors: [error],
      model: type.model ?? lead.deps.model,
      provider: lead.deps.provider,
      session: session.name,
      started,
    });
    return { type: type.name, session: session.name, result };
  }
  const result = await engine.runTurn(run.brief, {
    session,
    signal: run.signal,
    onEvent: (event) => {
      if (event.type === "tool_start") {
        run.emit({ type: "status", message: `${type.name} (${session.name}): ${event.name}` });
      }
    },
  });
  return { type: type.name, session: session.name, result };
}

/** A sub-agent's answer: its final prose, or a summary of its activity when it gave none. */
export function answerOf(run: SubAgentRun): string {
  const { result } = run;
  if (result.content.trim()) return result.content.trim();
  const lines = [
    `The ${run.type} sub-agent (session ${run.session}) gave no final answer; status ${result.status}.`,
  ];
  if (result.tool_calls.length) {
    lines.push("Its tool calls:");
    for (const call of result.tool_calls) {
      const args = JSON.stringify(call.arguments);
      const outcome = call.decision === "allow" || call.decision === "ask"
        ? (call.ok ? "ok" : "failed")
        : call.decision === "deny"
        ? "denied"
        : "cancelled";
      lines.push(
        `- ${call.name} ${args.length > 200 ? `${cutText(args, 200)}...` : args}: ${outcome}`,
      );
    }
  } else lines.push("It made no tool calls.");
  for (const error of result.errors) lines.push(`Error (${error.code}): ${error.message}`);
  return lines.join("\n");
}

/** Statuses that count as a sub-agent's work done (team stages go on, delegate results are ok). */
export function succeeded(result: TurnResult): boolean {
  return result.status === "ok" || result.status === "truncated";
}
