/**
 * Team runs: a team's stages run in order as sub-agents, each briefed with the earlier stages'
 * results; afterwards the run is summarized into the team memory (`.svc/teams/<name>/memory.md`).
 */
import { join } from "../util/posix_path.ts";
import type { AgentType, Catalog, Team } from "../catalog/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { TurnStatus } from "../shared/types.ts";
import { localDir } from "../util/dirs.ts";
import type { EngineEvent, TurnError, TurnResult } from "./events.ts";
import { turnResult } from "./result.ts";
import { oneLine, readRunMemory, summarizeRun, writeRunMemory } from "./run_memory.ts";
import { type LeadEngine, runSubAgent, type SubAgentRun, succeeded } from "./sub_agent.ts";
import { cutText } from "../util/text_cut.ts";

/** Each earlier stage's result in a stage brief is capped at this many characters. */
export const STAGE_RESULT_MAX = 4000;

/** One stage of a team run, as reported (`svc run --team --output json`). */
export interface StageReport {
  stage: number;
  type: string;
  session: string;
  status: TurnStatus;
  duration: number;
}

/** The outcome of a team run. */
export interface TeamRun {
  team: string;
  /** The last stage's status; `error` when the run could not start. */
  status: TurnStatus;
  stages: StageReport[];
  /** The TurnResult of the last stage that ran (or of the failure to start). */
  result: TurnResult;
  /** Where the memory was written; null when no stage ran or it could not be written. */
  memory: string | null;
  errors: TurnError[];
}

/** Options of a team run. */
export interface TeamRunOptions {
  /** The lead's session: stage sessions are linked to it. */
  session: SessionLog;
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** Called as each stage starts and ends (progress for front-ends). */
  onStage?: (stage: { stage: number; of: number; type: string; report?: StageReport }) => void;
}

const TEAM_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

/** The path of a team's memory file in `worktree`. */
export function teamMemoryPath(worktree: string, team: string): string {
  return join(localDir(worktree), "teams", team, "memory.md");
}

/**
 * The brief of stage `index` (0-based): team name and original task, a `## Stage N result` block
 * per earlier stage (capped), the previous stage's handoff note, the team memory and this
 * stage's task hint.
 */
export function stageBrief(
  team: Team,
  { task, index, earlier, memory }: {
    task: string;
    index: number;
    earlier: readonly SubAgentRun[];
    memory: string;
  },
): string {
  const stage = team.stages[index];
  const parts = [
    `You are stage ${
      index + 1
    } of ${team.stages.length} (${stage.type}) of the team "${team.name}".`,
    `Original task:\n${task}`,
  ];
  earlier.forEach((run, i) => {
    parts.push(`## Stage ${i + 1} result (${run.type})\n\n${capped(run.result.content.trim())}`);
  });
  const previous = index > 0 ? team.stages[index - 1].handoff_note : undefined;
  if (previous) parts.push(`Handoff note from stage ${index}:\n${previous}`);
  if (memory.trim()) parts.push(`## Team memory\n\n${memory.trim()}`);
  parts.push(`Your part:\n${stage.task_hint || "Do your part of the original task."}`);
  return parts.join("\n\n");
}

function capped(text: string): string {
  if (text.length <= STAGE_RESULT_MAX) return text || "(no answer)";
  return `${cutText(text, STAGE_RESULT_MAX)}\n[... truncated at ${STAGE_RESULT_MAX} characters]`;
}

/** What a team run needs besides the lead and the team. */
export interface TeamRunInput extends TeamRunOptions {
  task: string;
  catalog: Catalog;
}

/**
 * Runs `team` on `task` under `lead`. Every stage's type must exist and every type model must
 * pass the approval gate before the first stage runs; a stage that fails (status error, empty or
 * cancelled) stops the run. The run is then summarized with the lead's model into the team
 * memory (a per-stage record when summarizing fails), written atomically.
 */
export async function runTeam(
  lead: LeadEngine,
  team: Team,
  options: TeamRunInput,
): Promise<TeamRun> {
  const { task } = options;
  const started = performance.now();
  const emit = options.onEvent ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  const agents = lead.deps.agents;
  if (!agents) throw new Error("runTeam needs an engine built by a runtime");
  const types = await stageTypes(team, {
    catalog: options.catalog,
    checkModel: (model) => agents.checkModel(model),
  });
  if (!Array.isArray(types)) {
    emit({ type: "error", code: types.code, message: types.message });
    return refusedTeamRun(lead, { team: team.name, session: options.session, why: types, started });
  }
  const memoryPath = teamMemoryPath(lead.deps.worktree, team.name);
  const memory = await readRunMemory(memoryPath);
  await options.session.appendMessage({
    role: "command",
    content: `team ${team.name}: ${task}`,
    timestamp: new Date().toISOString(),
  });
  const { runs, stages } = await runStages(lead, { ...options, team, types, memory, signal, emit });
  const last = runs[runs.length - 1];
  const errors: TurnError[] = [...(last?.result.errors ?? [])];
  const written = runs.length
    ? await saveMemory(lead, { team, task, runs, memory, memoryPath, signal, emit, errors })
    : null;
  const status: TurnStatus = signal.aborted && (!last || succeeded(last.result))
    ? "cancelled"
    : last?.result.status ?? "cancelled";
  return {
    team: team.name,
    status,
    stages,
    memory: written,
    errors,
    result: last?.result ?? turnResult({
      status,
      model: lead.deps.model,
      provider: lead.deps.provider,
      session: options.session.name,
      started,
    }),
  };
}

/**
 * The agent types of `team`'s stages, or why the team cannot run: a name that cannot name a
 * memory folder, no stages, an unknown type, or a type model the approval gate refuses (checked
 * once for the whole team, before anything runs).
 */
async function stageTypes(
  team: Team,
  { catalog, checkModel }: { catalog: Catalog; checkModel: (model: string) => Promise<void> },
): Promise<AgentType[] | { code: string; message: string }> {
  if (!TEAM_NAME.test(team.name) || team.name.includes("..")) {
    return { code: "team", message: `team name "${team.name}" cannot name a memory folder` };
  }
  if (!team.stages.length) return { code: "team", message: `team "${team.name}" has no stages` };
  const types = [];
  for (const [i, stage] of team.stages.entries()) {
    const type = catalog.types.get(stage.type);
    if (!type) {
      const known = [...catalog.types.keys()].sort().join(", ") || "none";
      return {
        code: "unknown_type",
        message: `unknown type "${stage.type}" in stage ${
          i + 1
        } of team "${team.name}"; available types: ${known}`,
      };
    }
    types.push(type);
  }
  for (const model of new Set(types.flatMap((t) => t.model ? [t.model] : []))) {
    try {
      await checkModel(model);
    } catch (err) {
      return { code: "provider", message: (err as Error).message };
    }
  }
  return types;
}

/** Runs the stages in order; stops after a stage that did not succeed, or when cancelled. */
async function runStages(
  lead: LeadEngine,
  run: TeamRunInput & {
    team: Team;
    types: AgentType[];
    memory: string;
    signal: AbortSignal;
    emit: (event: EngineEvent) => void;
  },
): Promise<{ runs: SubAgentRun[]; stages: StageReport[] }> {
  const { team, task } = run;
  const runs: SubAgentRun[] = [];
  const stages: StageReport[] = [];
  for (const [i, stage] of team.stages.entries()) {
    if (run.signal.aborted) break;
    run.onStage?.({ stage: i + 1, of: team.stages.length, type: stage.type });
    const sub = await runSubAgent(lead, run.types[i], {
      catalog: run.catalog,
      brief: stageBrief(team, { task, index: i, earlier: runs, memory: run.memory }),
      task,
      parent: run.session,
      mode: stage.mode,
      signal: run.signal,
      emit: run.emit,
    });
    runs.push(sub);
    const report = {
      stage: i + 1,
      type: stage.type,
      session: sub.session,
      status: sub.result.status,
      duration: sub.result.duration,
    };
    stages.push(report);
    run.onStage?.({ stage: i + 1, of: team.stages.length, type: stage.type, report });
    if (!succeeded(sub.result)) break;
  }
  return { runs, stages };
}

/** A team run whose stages are done, as the team memory sees it. */
interface FinishedRun {
  team: Team;
  task: string;
  runs: readonly SubAgentRun[];
  memory: string;
  signal: AbortSignal;
}

/**
 * Summarizes the run into the team memory file; the path written, or null when writing failed
 * (then `errors` holds a `team_memory` error and a warning is emitted).
 */
async function saveMemory(
  lead: LeadEngine,
  run: FinishedRun & {
    memoryPath: string;
    emit: (event: EngineEvent) => void;
    errors: TurnError[];
  },
): Promise<string | null> {
  const text = await summarize(lead, run);
  try {
    await writeRunMemory(run.memoryPath, text, lead.deps.trusted ? undefined : lead.deps.worktree);
    return run.memoryPath;
  } catch (err) {
    const message = `could not write the team memory ${run.memoryPath}: ${(err as Error).message}`;
    run.errors.push({ code: "team_memory", message, at: new Date().toISOString() });
    run.emit({ type: "warning", message });
    return null;
  }
}

/** A team run that could not start: no stage ran, status `error`, the reason as its error. */
export function refusedTeamRun(
  lead: LeadEngine,
  { team, session, why, started = performance.now() }: {
    team: string;
    session: SessionLog;
    why: { code: string; message: string };
    started?: number;
  },
): TeamRun {
  const error = { ...why, at: new Date().toISOString() };
  return {
    team,
    status: "error",
    stages: [],
    memory: null,
    errors: [error],
    result: turnResult({
      status: "error",
      reason: "setup_error",
      errors: [error],
      model: lead.deps.model,
      provider: lead.deps.provider,
      session: session.name,
      started,
    }),
  };
}

/**
 * The new team memory: the lead's model summarizes the run, seeded with the memory so far; when
 * that fails, the memory so far plus one line per stage.
 */
async function summarize(
  lead: LeadEngine,
  { team, task, runs, memory, signal }: FinishedRun,
): Promise<string> {
  const at = new Date().toISOString();
  const transcript = runs.map((run, i) =>
    `## Stage ${i + 1} (${run.type}): ${run.result.status}\n\n${capped(run.result.content.trim())}`
  ).join("\n\n");
  const lines = runs.map((run, i) =>
    `- Stage ${i + 1} (${run.type}, session ${run.session}): ${run.result.status}: ${
      oneLine(run.result.content || run.result.errors[0]?.message || "")
    }`
  );
  const { client, model, config } = lead.deps;
  const { text } = await summarizeRun({ client, model, reasoning: config.reasoning }, {
    keeper: "an agent team",
    header: `Team: ${team.name}\nTask: ${task}`,
    memory,
    run: transcript,
    fallback: `## Run ${at}: ${cutText(task.split("\n")[0], 200)}\n\n${lines.join("\n")}\n`,
    signal,
  });
  return text;
}
