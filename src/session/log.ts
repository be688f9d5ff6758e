import type { PermissionRecord, TurnError } from "../shared/types.ts";
import type { LiveResults } from "./live.ts";
import type { SessionData, SessionEnvironment, SessionMessage } from "./types.ts";

/** A new, empty session document named `name`. */
export function newSessionData(name: string, extra: { parent_id?: string } = {}): SessionData {
  const now = new Date().toISOString();
  return {
    name,
    created_at: now,
    updated_at: now,
    ...(extra.parent_id ? { parent_id: extra.parent_id } : {}),
    messages: [],
    errors: [],
    permissions: [],
  };
}

/** Options of an appended message. */
export interface AppendOptions {
  /**
   * What the provider should keep seeing when the stored content of a tool message was shaped
   * (noise_tools, session_tool_max_chars).
   */
  live?: string;
  /** Let the write wait this long for other appends to share it. */
  deferMs?: number;
}

/** Options of an appended error. */
export interface ErrorOptions {
  /**
   * Keep the error queued when its write fails, so the next write that succeeds stores it (how a
   * turn records that the session could not be written).
   */
  retry?: boolean;
}

/**
 * The session an engine writes to: an append-only log. `Session` keeps it in
 * `.svc/sessions/<name>.json`; `MemorySession` keeps it in memory (eval trials, tests).
 */
export interface SessionLog {
  readonly name: string;
  /** Where the log is stored; null for an in-memory session. */
  readonly path: string | null;
  /** The document; treat as read-only. */
  readonly data: Readonly<SessionData>;
  /** Full tool results of the recent tool messages whose stored copy was shaped. */
  readonly live: Pick<LiveResults, "get">;
  /** Appends a message; resolves once it is stored. */
  appendMessage(message: SessionMessage, options?: AppendOptions): Promise<void>;
  /** Appends an error; with `retry` it stays queued through failed writes until one succeeds. */
  appendError(error: TurnError, options?: ErrorOptions): Promise<void>;
  appendPermission(record: PermissionRecord): Promise<void>;
  addSubSession(name: string): Promise<void>;
  /** Stores the environment block's values taken for this session; `deferMs` as for appends. */
  setEnvironment(environment: SessionEnvironment, options?: { deferMs?: number }): Promise<void>;
  /** Renames the log (first-message naming); a taken name gets `_2`, `_3`, ... */
  rename(name: string): Promise<void>;
  /**
   * Makes every append so far durable; rejects with the last failed write, once. A failed write
   * takes its appends out of `data`, so no later write stores them.
   */
  sync(): Promise<void>;
}
