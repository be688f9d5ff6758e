/**
 * Which session `svc run` uses: `--session-id <name>` (opened or created), `--continue` (the
 * worktree's most recent session), `--resume <ref>` (a saved session by name or unique prefix) or
 * `--fork <ref>` with `--fork-at <turn>` (a new session copied from a saved one). They exclude
 * each other; a ref that names no single session is a usage error listing close matches.
 */
import { latestSession, resolveSessionRef } from "../runtime/sessions.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { wholeNumberOrNull } from "./flags.ts";

/** The session flags of `svc run`. */
export interface RunSessionFlags {
  sessionId?: string;
  continue?: boolean;
  resume?: string;
  fork?: string;
  forkAt?: string;
  path?: string;
}

/** The session a run opens (`sessionId`) or forks (`fork`); neither: a new one. */
export interface RunSessionTarget {
  sessionId?: string;
  fork?: { from: string; at?: number };
}

/** Resolves the session flags of a run, or the usage problem they have. */
export async function runSessionTarget(
  flags: RunSessionFlags,
): Promise<RunSessionTarget | { problem: string }> {
  const given = [
    flags.sessionId !== undefined && "--session-id",
    flags.continue && "--continue",
    flags.resume !== undefined && "--resume",
    flags.fork !== undefined && "--fork",
  ].filter((flag): flag is string => Boolean(flag));
  if (given.length > 1) return { problem: `${given.join(" and ")} cannot be combined` };
  let at: number | undefined;
  if (flags.forkAt !== undefined) {
    if (flags.fork === undefined) return { problem: "--fork-at needs --fork <session>" };
    at = wholeNumberOrNull(flags.forkAt, 1) ?? undefined;
    if (at === undefined) return { problem: "--fork-at takes a turn number of 1 or more" };
  }
  if (given.length === 0 || flags.sessionId !== undefined) return { sessionId: flags.sessionId };
  let worktree: string;
  try {
    worktree = resolveWorktree(flags.path);
  } catch {
    return {}; // Loading the runtime reports the missing worktree.
  }
  if (flags.continue) {
    const latest = await latestSession({ worktree });
    if (latest) return { sessionId: latest };
    return {
      problem: `--continue: no session to continue in ${worktree} yet; start one without it`,
    };
  }
  const flag = flags.resume !== undefined ? "--resume" : "--fork";
  const resolved = await resolveSessionRef(flags.resume ?? flags.fork!, { worktree });
  if (!resolved.ok) return { problem: `${flag}: ${resolved.message}` };
  return flags.fork !== undefined
    ? { fork: { from: resolved.name, ...(at ? { at } : {}) } }
    : { sessionId: resolved.name };
}
