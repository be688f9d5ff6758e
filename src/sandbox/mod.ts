/** svc's OS sandbox and command limits (docs/security.md): the public face of src/sandbox/. */
export {
  type CommandLimits,
  HIDDEN_HOME_PATHS,
  type SandboxSettings,
  sandboxSettings,
} from "./settings.ts";
export { type SandboxKind, sandboxKind, sandboxKindNow } from "./probe.ts";
export { CONTROL_PATHS, type SandboxLayout, sandboxLayout } from "./layout.ts";
export { bwrapArgs } from "./bwrap.ts";
export { type AppliedLimits, appliedLimits } from "./limits.ts";
export {
  type CommandLine,
  type Plan,
  planCommand,
  type PlannedCommand,
  sandboxState,
} from "./plan.ts";
export { limitReached } from "./outcome.ts";
export { commandFate } from "./status.ts";
