/**
 * Session naming and lookup for front-ends that must not load the whole runtime
 * (src/runtime/mod.ts) to name, check or find a session: the REPL names a new session from its
 * first message, `svc jobs` checks session names and the jobs runner names a run's session;
 * `--continue`, `--resume`, `/resume` and `svc sessions` resolve a ref typed by a person.
 * Importing this module loads src/session/naming.ts, resolve.ts, fork.ts and two util modules.
 */
export { checkSessionName, interactiveName, jobSessionName } from "../session/naming.ts";
export {
  latestSession,
  recentSessions,
  resolveSessionRef,
  type SessionRefResult,
} from "../session/resolve.ts";
export { type ForkOrigin, turnCount } from "../session/fork.ts";
