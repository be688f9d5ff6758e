/**
 * Forking a session: a new session whose history is a copy of another's up to its last turn or a
 * chosen one, linked to it by `forked_from`. The source is only read, never written.
 */
import type { SessionData, SessionMessage } from "./types.ts";

/** Where a forked session came from: the source session and how many of its turns it copied. */
export interface ForkOrigin {
  session: string;
  turn: number;
}

/** How many turns a history holds: one per user message. */
export function turnCount(messages: readonly SessionMessage[]): number {
  let turns = 0;
  for (const message of messages) if (message.role === "user") turns++;
  return turns;
}

/**
 * The messages of `source` up to the end of turn `at` (default its last turn: everything), with
 * the fork's origin, or why not: an empty session, or a turn it does not have.
 */
export function forkHistory(
  source: Pick<SessionData, "name" | "messages">,
  at?: number,
): { messages: SessionMessage[]; origin: ForkOrigin } | { problem: string } {
  const turns = turnCount(source.messages);
  if (turns === 0) return { problem: `session ${source.name} has no turns to fork yet` };
  const turn = at ?? turns;
  if (!Number.isInteger(turn) || turn < 1 || turn > turns) {
    const has = turns === 1 ? "1 turn" : `${turns} turns`;
    return { problem: `session ${source.name} has ${has}; fork at a turn from 1 to ${turns}` };
  }
  let end = source.messages.length;
  if (turn < turns) {
    let seen = 0;
    end = source.messages.findIndex((m) => m.role === "user" && ++seen === turn + 1);
  }
  // Records are copied, so no later edit of one document reaches the other.
  const messages = structuredClone(source.messages.slice(0, end)) as SessionMessage[];
  return { messages, origin: { session: source.name, turn } };
}
