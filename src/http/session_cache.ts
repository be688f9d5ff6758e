import type { Session, SessionStore } from "../runtime/mod.ts";

/**
 * Keeps the last few sessions opened by POST /chat, so a long conversation is not re-read and
 * re-parsed on every turn. Safe because turns are serialized and a Session reloads itself when
 * another process replaced its file; a file deleted meanwhile starts a fresh session.
 */
export class SessionCache {
  #sessions = new Map<string, Session>();

  constructor(readonly store: SessionStore, readonly capacity = 8) {}

  /** The cached session when its file still exists, else the saved one or a new one. */
  async open(name: string): Promise<Session> {
    const cached = this.#sessions.get(name);
    this.#sessions.delete(name);
    const session = cached && await this.store.exists(name)
      ? cached
      : await this.store.openOrCreate(name);
    this.#sessions.set(name, session);
    if (this.#sessions.size > this.capacity) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    return session;
  }
}
