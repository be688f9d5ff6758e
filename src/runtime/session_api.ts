/**
 * Saved sessions for the HTTP API (`GET /sessions/{id}`, `DELETE /sessions/{id}`,
 * `GET /sessions?q=`): a session's messages by page, deletion with its undo checkpoints (what
 * `svc sessions rm` runs) and full-text search (what `svc sessions search` runs). A session is
 * named exactly here, never by prefix: a client that deletes must name what it deletes.
 */
import { checkSessionName } from "../session/naming.ts";
import type { SessionStore } from "../session/store.ts";
import { removeCheckpoints } from "../session/checkpoint.ts";
import { type SearchReport, searchSessions } from "../session/search.ts";
import { sessionContext, type SessionContextFigure } from "./session_context.ts";
import type { SessionData } from "../session/types.ts";

/** A name that is a saved session of `store`, or why not (`invalid`: not a safe name). */
export async function exactSession(
  store: SessionStore,
  name: string,
): Promise<{ ok: true; name: string } | { ok: false; invalid: boolean; message: string }> {
  const problem = checkSessionName(name);
  if (problem) return { ok: false, invalid: true, message: `invalid session id: ${problem}` };
  if (!(await store.exists(name))) {
    return { ok: false, invalid: false, message: `no session "${name}"` };
  }
  return { ok: true, name };
}

/** One page of a session: its header, context figure and `messages[offset, offset + limit)`. */
export interface SessionPage extends Omit<SessionData, "messages"> {
  context: SessionContextFigure;
  total_messages: number;
  offset: number;
  limit: number;
  messages: SessionData["messages"];
}

/** The session `name` with the messages of one page. */
export async function sessionPage(
  store: SessionStore,
  name: string,
  { offset, limit }: { offset: number; limit: number },
): Promise<SessionPage> {
  const data = await store.read(name);
  const { messages, ...header } = data;
  return {
    ...header,
    context: sessionContext(data),
    total_messages: messages.length,
    offset,
    limit,
    messages: messages.slice(offset, offset + limit),
  };
}

/** What deleting a session did; `checkpoints_kept` says why its checkpoints were left alone. */
export interface Deleted {
  deleted: string;
  checkpoints_removed: boolean;
  checkpoints_kept?: string;
}

/**
 * Deletes session `name` (already resolved) and its undo checkpoints (`.svc/checkpoints/<name>/`);
 * a checkpoint folder that leads outside `.svc` is left alone and named in `checkpoints_kept`.
 */
export async function deleteSession(store: SessionStore, name: string): Promise<Deleted> {
  await store.delete(name);
  const checkpoints = await removeCheckpoints(store.worktree, name);
  return {
    deleted: name,
    checkpoints_removed: checkpoints === "removed",
    ...(typeof checkpoints === "object" ? { checkpoints_kept: checkpoints.refused } : {}),
  };
}

/** The best `limit` sessions that mention `text`, without server file paths. */
export function searchStore(
  store: SessionStore,
  text: string,
  { limit }: { limit: number },
): Omit<SearchReport, "results"> & { results: Omit<SearchReport["results"][number], "path">[] } {
  const report = searchSessions(store.dir, text, { limit });
  return { ...report, results: report.results.map(({ path: _path, ...rest }) => rest) };
}
