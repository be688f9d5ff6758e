export { Engine, MAX_ROUNDS } from "./engine.ts";
export type { TurnOptions } from "./engine.ts";
export type { Approver, EngineDeps, Lead } from "./context_types.ts";
export type * from "./events.ts";
export { askTool, NO_ONE_TO_ANSWER } from "./ask.ts";
export { CANCELLED } from "./tool_call.ts";
export { compactSession } from "./compaction.ts";
export { composeSystemMessages, PROJECT_INSTRUCTIONS_MAX } from "./system_prompt.ts";
