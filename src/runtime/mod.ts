/** The runtime layer: the composition root every front-end builds engines and serves tools from. */
export { Runtime, type RuntimeInit, type RuntimeParts } from "./runtime.ts";
export {
  type ConfirmModel,
  type ConnectedModel,
  connectModel,
  type ModelChoice,
} from "./connection.ts";
export { applyOverrides } from "./overrides.ts";
export { resolveWorktree } from "./worktree.ts";
export { auditLog, auditPath } from "./served_audit.ts";
export { sessionReader } from "./served_sessions.ts";
export { SERVED_SESSION, servedTools, type ServeToolsOptions } from "./served_tools.ts";
export { type ServedHost, servedHost } from "./served_host.ts";
