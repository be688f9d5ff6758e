export { readSessionFile, Session, SessionError } from "./session.ts";
export { SessionStore } from "./store.ts";
export { MemorySession } from "./memory.ts";
export type { AppendOptions, SessionLog } from "./log.ts";
export * from "./naming.ts";
export type * from "./types.ts";
