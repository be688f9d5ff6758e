export { readSessionFile, Session, SessionError } from "./session.ts";
export { SessionStore } from "./store.ts";
export * from "./naming.ts";
export type * from "./types.ts";
