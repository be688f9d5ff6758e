/**
 * Session naming for front-ends that must not load the whole runtime (src/runtime/mod.ts) to
 * name or check a session: the REPL names a new session from its first message, `svc jobs`
 * checks session names and the jobs runner names a run's session. Importing this module loads
 * src/session/naming.ts and nothing more.
 */
export { checkSessionName, interactiveName, jobSessionName } from "../session/naming.ts";
