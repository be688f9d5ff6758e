/** The runtime layer: the composition root every front-end builds engines and serves tools from. */
export { Runtime, type RuntimeInit, type RuntimeParts } from "./runtime.ts";
export {
  type ConfirmModel,
  type ConnectedModel,
  connectModel,
  type ModelChoice,
} from "./connection.ts";
export { applyOverrides } from "./overrides.ts";
export { type AgentTypeLookup, agentTypeOverrides } from "./agent_type.ts";
export {
  type HeadlessInfo,
  headlessInfo,
  type HeadlessOutcome,
  type HeadlessRequest,
  type HeadlessRunOptions,
  type HeadlessSetup,
  prepareHeadless,
  setupFailure,
  type TeamTurnResult,
} from "./headless.ts";
export { resolveWorktree } from "./worktree.ts";
export { auditLog, auditPath } from "./served_audit.ts";
export { sessionReader } from "./served_sessions.ts";
export { SERVED_SESSION, servedTools, type ServeToolsOptions } from "./served_tools.ts";
export { type ServedHost, servedHost } from "./served_host.ts";

// What front-ends take from the layers below the runtime: they import engine/, session/ and
// catalog/ only through here (scripts/check_imports.ts), or through a small runtime module
// (run_memory.ts, sessions.ts, catalogs.ts) when a command must not load the whole runtime.
export type { EngineOverrides } from "../engine/deps.ts";
export type { TurnLimits } from "../engine/budget.ts";
export { usd } from "../engine/budget.ts";
export { MAX_ROUNDS } from "../engine/turn.ts";
export type { Engine } from "../engine/engine.ts";
export { EVENT_SCHEMA_VERSION } from "../engine/events.ts";
export type {
  EngineEvent,
  ToolCallRecord,
  TurnContext,
  TurnError,
  TurnReason,
  TurnResult,
  TurnStatus,
} from "../engine/events.ts";
export { composeSystemMessages } from "../engine/system_prompt.ts";
export type { AppendOptions, SessionLog } from "../session/log.ts";
export { MemorySession } from "../session/memory.ts";
export type { Session } from "../session/session.ts";
export type { SessionStore } from "../session/store.ts";
export type { SessionData, SessionMessage } from "../session/types.ts";
export { checkSessionName, interactiveName } from "../session/naming.ts";
export type { Catalog } from "../catalog/types.ts";
export { type CatalogKind, catalogTable, ONE, showEntry } from "../catalog/format.ts";
