/**
 * The `delegate` tool and what it runs: a sub-agent of a named agent type, in-process, one at a
 * time per lead, in its own session linked to the lead's.
 */
import type { AgentType } from "../catalog/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { Zod } from "../tool/arg_schema.ts";
import type { Tool, ToolOutput } from "../tool/types.ts";
import type { EngineEvent } from "./events.ts";
import {
  answerOf,
  type LeadEngine,
  MAX_DELEGATION_DEPTH,
  runSubAgent,
  succeeded,
} from "./sub_agent.ts";

/**
 * The description of the `delegate` tool. It names the types it can run, with their
 * descriptions, unless `inEnvironment`: then the environment block's `Delegate types` line names
 * them (`context.agents`, environment_block.ts) and the description points there, which keeps
 * the names out of every request twice (docs/prompt.md).
 */
export function delegateDescription(
  types: readonly AgentType[] = [],
  { inEnvironment = false }: { inEnvironment?: boolean } = {},
): string {
  const base = "Hand a self-contained task to a sub-agent of an agent type and get its final " +
    "answer. It has its own tools, permissions and session in this folder, and one runs at a " +
    "time: put everything it needs in task.";
  if (!types.length) return base;
  if (inEnvironment) return `${base} type: one of the Delegate types in the environment block.`;
  const list = types.map((t) => t.description ? `${t.name} (${t.description})` : t.name);
  return `${base} Types: ${list.join("; ")}.`;
}

/** The arguments of `delegate`: one builder, so every delegate tool shares its remembered schema. */
const delegateSchema = (z: Zod) =>
  z.object({
    type: z.string().min(1),
    task: z.string().min(1),
  });

/** The `delegate` tool; the engine behind the call runs the sub-agent (`ToolContext.delegate`). */
export function delegateTool(
  types: readonly AgentType[] = [],
  options: { inEnvironment?: boolean } = {},
): Tool {
  return {
    name: "delegate",
    category: "delegate",
    description: delegateDescription(types, options),
    schema: delegateSchema,
    async run(args, ctx) {
      if (!ctx.delegate) {
        return { content: "Error: delegate runs only inside an agent turn", ok: false };
      }
      return await ctx.delegate(String(args.type), String(args.task));
    },
  };
}

/**
 * Runs `task` as a sub-agent of the type named `typeName` under `lead` and returns the tool
 * result: its final answer (ok unless the sub-agent failed), or a tool error naming the known
 * types when there is no such type. Every way into delegation (the `delegate` tool, any tool's
 * `ctx.delegate`, a plugin's) runs through here, so the depth cap holds here too: a lead at
 * `MAX_DELEGATION_DEPTH` is refused even when its `delegate` tool is not offered.
 */
export async function delegate(
  lead: LeadEngine,
  typeName: string,
  call: {
    task: string;
    session: SessionLog;
    signal: AbortSignal;
    emit: (event: EngineEvent) => void;
  },
): Promise<ToolOutput> {
  const agents = lead.deps.agents;
  if (!agents) return { content: "Error: this engine cannot delegate", ok: false };
  if (lead.deps.depth >= MAX_DELEGATION_DEPTH) {
    return {
      content: `Error: delegation is nested ${MAX_DELEGATION_DEPTH} deep already, the limit; ` +
        "do the task here",
      ok: false,
    };
  }
  const catalog = await agents.catalog();
  const type = catalog.types.get(typeName);
  if (!type) {
    const known = [...catalog.types.keys()].sort().join(", ") || "none";
    return { content: `Error: unknown type "${typeName}"; available types: ${known}`, ok: false };
  }
  const run = await runSubAgent(lead, type, {
    catalog,
    brief: call.task,
    task: call.task,
    parent: call.session,
    signal: call.signal,
    emit: call.emit,
  });
  const { result } = run;
  const tokens = result.usage?.completion_tokens;
  return {
    content: answerOf(run),
    ok: succeeded(result),
    status: `${type.name} ${result.status} in ${result.duration.toFixed(1)} s` +
      `${tokens !== undefined ? `, ${tokens} completion tokens` : ""} (session ${run.session})`,
  };
}
