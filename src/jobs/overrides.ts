/**
 * The engine overrides of a job run: its agent type through the same merge sub-agents use, then
 * its own settings and the composed system prompt (task file, system_prompt, run memory).
 */
import type { ToolPermission } from "../config/schema.ts";
import { tightenPermissions } from "../config/trust.ts";
import { agentTypeOverrides, freshCatalog } from "../runtime/agent_type.ts";
import type { EngineOverrides, TurnLimits } from "../runtime/mod.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { Job } from "./schema.ts";
import { jobPrompt } from "./task.ts";

/**
 * The engine overrides of a job: its agent type through the same merge sub-agents use, then its
 * own mode, provider, model, tools_deny and tool_permission, and the composed system prompt. In
 * an untrusted worktree the job's permissions and mode can only tighten what is in force.
 */
export async function jobOverrides(
  runtime: Runtime,
  { job, task, memory }: { job: Job; task: string; memory: string },
): Promise<EngineOverrides> {
  let typed: EngineOverrides = {};
  if (job.type) {
    // Read again for every run: the approval covers the type as its files are now (approvals.ts).
    const catalog = await freshCatalog(runtime);
    const found = agentTypeOverrides(runtime, { catalog, name: job.type });
    if (found.kind === "unknown") throw new Error(found.message);
    typed = found.overrides;
  }
  const config = runtime.config;
  const basePermissions: ToolPermission = { ...config.tool_permission, ...typed.tool_permission };
  let permissions = typed.tool_permission;
  if (job.tool_permission) {
    if (runtime.trusted) permissions = { ...basePermissions, ...job.tool_permission };
    else {
      const { bash_allow: _ignored, ...categories } = job.tool_permission;
      permissions = tightenPermissions(basePermissions, categories);
    }
  }
  const mode = job.mode === "build" && config.mode === "plan" && !runtime.trusted
    ? undefined
    : job.mode;
  const deny = [...(typed["tools.deny"] ?? []), ...(job.tools_deny ?? [])];
  const prompt = jobPrompt({
    worktree: runtime.worktree,
    typePrompt: typed.typePrompt,
    task,
    systemPrompt: job.system_prompt ?? config.system_prompt ?? undefined,
    memory,
  });
  return {
    typePrompt: prompt.lead,
    ...(prompt.tail !== undefined ? { system_prompt: prompt.tail } : {}),
    ...(mode ? { mode } : {}),
    ...(permissions ? { tool_permission: permissions } : {}),
    ...(deny.length ? { "tools.deny": [...new Set(deny)] } : {}),
    ...(job.provider ? { provider: job.provider, modelFrom: "flag" as const } : {}),
    ...(job.model
      ? { model: job.model, modelFrom: "flag" as const }
      : typed.model
      ? { model: typed.model, modelFrom: "type" as const }
      : {}),
    ...(job.limits ? { limits: jobLimits(job.limits, runtime) } : {}),
    approveModel: job.approve_model,
    headless: true,
  };
}

/**
 * A job's turn limits: as set in a trusted worktree; in an untrusted one (its register came with
 * the code) each only where it is lower than the config's.
 */
function jobLimits(limits: NonNullable<Job["limits"]>, runtime: Runtime): TurnLimits {
  if (runtime.trusted) return limits;
  const kept: TurnLimits = {};
  for (const key of ["max_turns", "max_tokens_total", "max_cost"] as const) {
    const mine = limits[key];
    const theirs = runtime.config[`limits.${key}`];
    if (mine !== undefined && (theirs === undefined || mine < theirs)) kept[key] = mine;
  }
  return kept;
}
