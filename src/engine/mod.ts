/** The agent loop; engines are built by the runtime layer (src/runtime). */
export { Engine, MAX_CALLS_PER_ROUND, MAX_ROUNDS } from "./engine.ts";
export type { EngineFactory, TurnOptions } from "./engine.ts";
export type * from "./deps.ts";
export type * from "./events.ts";
export { askTool, NO_ONE_TO_ANSWER } from "./ask.ts";
export { compactSession } from "./compaction.ts";
export { turnResult } from "./result.ts";
export { composeSystemMessages, PROJECT_INSTRUCTIONS_MAX } from "./system_prompt.ts";
