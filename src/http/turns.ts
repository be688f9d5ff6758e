/** One /chat request that names a session: waiting for the engine, or running its turn. */
interface Entry {
  session: string;
  state: "queued" | "running";
  abort: AbortController;
}

/**
 * The /chat requests by session, so `POST /sessions/{id}/abort` can end a session's running turn
 * (its signal aborts: the turn ends `cancelled` with its partial answer saved) or take its waiting
 * requests out of the queue.
 */
export class TurnRegistry {
  #entries = new Set<Entry>();

  /** Registers a request; `session` is absent for a new session until its name is known. */
  enter(session: string | undefined, abort: AbortController): Entry {
    const entry: Entry = { session: session ?? "", state: "queued", abort };
    this.#entries.add(entry);
    return entry;
  }

  /** The request got the engine and runs in `session`. */
  running(entry: Entry, session: string): void {
    entry.session = session;
    entry.state = "running";
  }

  /** The request ended. */
  leave(entry: Entry): void {
    this.#entries.delete(entry);
  }

  /** How many requests of `session` run (0 or 1) and wait for the engine. */
  activity(session: string): { running: number; queued: number } {
    const mine = [...this.#entries].filter((e) => e.session === session && !e.abort.signal.aborted);
    const running = mine.filter((e) => e.state === "running").length;
    return { running, queued: mine.length - running };
  }

  /**
   * Aborts the session's running turn, or else every request of it still waiting; returns what
   * was aborted, or null when nothing runs or waits in that session.
   */
  abort(session: string): { running: boolean; queued: number } | null {
    const mine = [...this.#entries].filter((e) => e.session === session && !e.abort.signal.aborted);
    const running = mine.find((e) => e.state === "running");
    const targets = running ? [running] : mine;
    if (!targets.length) return null;
    for (const entry of targets) entry.abort.abort(new Error("aborted by the client"));
    return { running: Boolean(running), queued: running ? 0 : targets.length };
  }
}
