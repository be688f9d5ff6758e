export { readSessionFile, Session, SessionError } from "./session.ts";
export { SessionStore } from "./store.ts";
export { MemorySession } from "./memory.ts";
export { LIVE_TOOL_MESSAGES, LiveResults } from "./live.ts";
export type { AppendOptions, SessionLog } from "./log.ts";
export * from "./naming.ts";
export type * from "./types.ts";
