/**
 * One headless run as `svc run` makes it: a session opened or named from the prompt, an engine
 * (as an agent type when one is named), then one turn or a team's stages. The front-end maps
 * flags in and renders events and the result out; what it runs is built here.
 */
import type { Engine } from "../engine/engine.ts";
import type { EngineEvent, TurnError, TurnResult } from "../engine/events.ts";
import { turnResult } from "../engine/result.ts";
import type { StructuredAnswer } from "../engine/structured.ts";
import type { StageReport, TeamRun } from "../engine/team.ts";
import { checkSessionName, interactiveName } from "../session/naming.ts";
import type { Session } from "../session/session.ts";
import type { Approver } from "../tool/approval.ts";
import type { TurnLimits } from "../engine/budget.ts";
import type { ToolImage } from "../tool/types.ts";
import { agentTypeOverrides } from "./agent_type.ts";
import { sessionEnd, sessionStart } from "./session_hooks.ts";
import type { Runtime } from "./runtime.ts";

export { checkSessionName };

/** What to run: the prompt, the session, an agent type or a team, and the approver. */
export interface HeadlessRequest {
  prompt: string;
  /** Open this session, or create it; default a new one named from the prompt. */
  sessionId?: string;
  /**
   * Start a new session whose history is a copy of the saved session `from` up to turn `at`
   * (default its last), linked by `forked_from`; `sessionId` is then ignored.
   */
  fork?: { from: string; at?: number };
  /** Run the turn as this agent type (its prompt, model, permissions). */
  type?: string;
  /** Run this team's stages instead of one turn. */
  team?: string;
  /** Answers ask-gated calls; default: denied by the policy. */
  approver?: Approver;
  /** `--permission-prompt-tool`: the MCP tool that answers what `approver` leaves to it. */
  permissionPromptTool?: string;
  /** The turn's limits (`--max-turns`, ...), over the config's `limits.*`. */
  limits?: TurnLimits;
  /** The answer must be a JSON value valid against this schema (one turn, not a team). */
  structured?: StructuredAnswer;
  /** Images sent with the prompt (one turn, not a team), checked by src/tool/images.ts. */
  images?: readonly ToolImage[];
}

/** How a prepared run reports while it runs. */
export interface HeadlessRunOptions {
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
  /** A team's stage started (no report) or ended. */
  onStage?: (stage: { stage: number; of: number; type: string; report?: StageReport }) => void;
}

/** A team run as a TurnResult: the last stage's, with the run's status, errors and stages. */
export type TeamTurnResult = TurnResult & {
  stages: Pick<StageReport, "type" | "session" | "status" | "duration">[];
};

/** How a run ended: its result and, for a team, where the team memory was written. */
export interface HeadlessOutcome {
  result: TurnResult | TeamTurnResult;
  team?: { memory: string | null };
}

/** What a prepared run is: what `--output stream-json` says in its `init` line. */
export interface HeadlessInfo {
  worktree: string;
  provider: string;
  model: string;
  /** The tools offered to the model, by canonical name. */
  tools: string[];
  mode: "plan" | "build";
  /** The configured MCP servers; `autoconnect` ones were connected by `runtime.start()`. */
  mcp_servers: { name: string; autoconnect: boolean }[];
}

/**
 * What preparing found: a run ready to start, an unknown type or team (the caller's usage
 * error), a session store that cannot be written, or a prompt the model cannot take (`refused`:
 * images for a model that takes none; nothing was sent).
 */
export type HeadlessSetup =
  | {
    kind: "ready";
    session: string;
    info: HeadlessInfo;
    run(options: HeadlessRunOptions): Promise<HeadlessOutcome>;
  }
  | { kind: "unknown"; message: string }
  | { kind: "session_write"; message: string; session: string }
  | { kind: "refused"; code: "images_not_accepted"; message: string; session: string };

/**
 * Opens the session, checks the type or team and builds the headless engine; throws what loading
 * a connection or the engine throws. The plugin services must have started (`runtime.start()`).
 */
export async function prepareHeadless(
  runtime: Runtime,
  request: HeadlessRequest,
): Promise<HeadlessSetup> {
  const opened = await openSession(runtime, request);
  if (opened.kind !== "open") return opened;
  const { session, resumed } = opened;
  const catalog = request.type || request.team ? await runtime.catalog() : undefined;
  const typed = request.type
    ? agentTypeOverrides(runtime, { catalog: catalog!, name: request.type })
    : undefined;
  if (typed?.kind === "unknown") return typed;
  if (request.team && !catalog!.teams.has(request.team)) {
    const message = `unknown team "${request.team}"; available teams: ${names(catalog!.teams)}`;
    return { kind: "unknown", message };
  }
  const engine = await runtime.engine({
    headless: true,
    approver: request.approver,
    ...(request.permissionPromptTool ? { permissionPromptTool: request.permissionPromptTool } : {}),
    session,
    ...(request.limits ? { limits: request.limits } : {}),
    ...typed?.overrides,
  });
  const { team, prompt, structured, images } = request;
  // Refused before anything runs: no hook, no request, no session record.
  const refused = await engine.refuseImages(images ?? []);
  if (refused) {
    return {
      kind: "refused",
      code: "images_not_accepted",
      message: refused,
      session: session.name,
    };
  }
  return {
    kind: "ready",
    session: session.name,
    info: headlessInfo(runtime, engine),
    run: async ({ signal, onEvent, onStage }) => {
      const warn = (message: string) => onEvent?.({ type: "warning", message });
      await sessionStart(runtime, session, {
        source: resumed ? "resume" : "startup",
        warn,
        signal,
      });
      try {
        if (!team) {
          const result = await engine.runTurn(prompt, { signal, onEvent, structured, images });
          return { result };
        }
        const run = await engine.runTeam(team, prompt, { session, signal, onEvent, onStage });
        return { result: teamResult(run), team: { memory: run.memory } };
      } finally {
        await sessionEnd(runtime, session, { reason: "other", warn });
      }
    },
  };
}

/**
 * The run's session: a fork of `request.fork` (written now), the one named by `sessionId`
 * (opened, or created), or a new one named from the prompt; or why the run cannot have it.
 */
async function openSession(
  runtime: Runtime,
  request: HeadlessRequest,
): Promise<
  { kind: "open"; session: Session; resumed: boolean } | Exclude<HeadlessSetup, { kind: "ready" }>
> {
  const { sessionId, fork } = request;
  const resumed = Boolean(sessionId) &&
    await runtime.sessions.exists(sessionId!).catch(() => false);
  // A fork is named like its source, from the source's first prompt, with its own timestamp.
  const source = fork ? await runtime.sessions.read(fork.from) : undefined;
  const first = source?.messages.find((m) => m.role === "user")?.content ?? request.prompt;
  const session = sessionId && !fork
    ? await runtime.sessions.openOrCreate(sessionId)
    : runtime.sessions.create(interactiveName(new Date(), first));
  try {
    await runtime.sessions.checkWritable();
  } catch (err) {
    const message = `Could not write the session ${session.name}: ${(err as Error).message}`;
    return { kind: "session_write", message, session: session.name };
  }
  if (!source) return { kind: "open", session, resumed };
  const forked = await runtime.sessions.fork(source, { name: session.name, at: fork?.at });
  if ("problem" in forked) return { kind: "unknown", message: forked.problem };
  return { kind: "open", session: forked, resumed: true };
}

/** What a headless engine runs with: the `init` line of `--output stream-json` (runs and jobs). */
export function headlessInfo(runtime: Runtime, engine: Engine): HeadlessInfo {
  return {
    worktree: runtime.worktree,
    provider: engine.deps.provider,
    model: engine.deps.model,
    tools: engine.offeredTools().map((tool) => tool.name),
    mode: engine.deps.config.mode ?? "build",
    mcp_servers: runtime.config["mcp.servers"].map(({ name, autoconnect }) => ({
      name,
      autoconnect,
    })),
  };
}

/** The TurnResult of a run that failed before its turn started. */
export function setupFailure(
  error: TurnError,
  ids: { model?: string; provider?: string; session?: string },
): TurnResult {
  return turnResult({
    status: "error",
    reason: "setup_error",
    errors: [error],
    model: ids.model ?? "",
    provider: ids.provider ?? "",
    session: ids.session ?? "",
  });
}

/** A team run as `svc run` reports it: the last stage's TurnResult with the stages listed. */
function teamResult(run: TeamRun): TeamTurnResult {
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
