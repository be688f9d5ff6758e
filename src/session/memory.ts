import type { PermissionRecord, TurnError } from "../shared/types.ts";
import { LiveResults } from "./live.ts";
import { type AppendOptions, newSessionData, type SessionLog } from "./log.ts";
import type { SessionData, SessionEnvironment, SessionMessage } from "./types.ts";

/** A session kept only in memory: nothing is written (eval trials, tests, dry runs). */
export class MemorySession implements SessionLog {
  readonly path = null;
  readonly live = new LiveResults();
  #data: SessionData;

  constructor(name: string, extra: { parent_id?: string } = {}) {
    this.#data = newSessionData(name, extra);
  }

  get name(): string {
    return this.#data.name;
  }

  get data(): Readonly<SessionData> {
    return this.#data;
  }

  appendMessage(message: SessionMessage, options: AppendOptions = {}): Promise<void> {
    this.live.note(message, this.#data.messages, options.live);
    return this.#touch(() => this.#data.messages.push(message));
  }

  appendError(error: TurnError): Promise<void> {
    return this.#touch(() => this.#data.errors.push(error));
  }

  appendPermission(record: PermissionRecord): Promise<void> {
    return this.#touch(() => this.#data.permissions.push(record));
  }

  addSubSession(name: string): Promise<void> {
    return this.#touch(() => this.#data.sub_sessions = [...(this.#data.sub_sessions ?? []), name]);
  }

  setEnvironment(environment: SessionEnvironment): Promise<void> {
    return this.#touch(() => this.#data.environment = environment);
  }

  rename(name: string): Promise<void> {
    return this.#touch(() => this.#data.name = name);
  }

  sync(): Promise<void> {
    return Promise.resolve();
  }

  #touch(mutate: () => unknown): Promise<void> {
    mutate();
    this.#data.updated_at = new Date().toISOString();
    return Promise.resolve();
  }
}
