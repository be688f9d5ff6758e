import { pathExists, readTextCapped, UnreadableFileError } from "../util/fs.ts";
import { basename, join } from "../util/posix_path.ts";
import { syncDir, withFileLock, writeFileAtomic } from "../util/atomic.ts";
import type { PermissionRecord, TurnError } from "../shared/types.ts";
import type { AppendOptions, ErrorOptions, SessionLog } from "./log.ts";
import type { SessionData, SessionEnvironment, SessionMessage } from "./types.ts";
import { ByteList, concatBytes } from "../util/byte_list.ts";
import { LiveResults } from "./live.ts";
import { continuable, noteWrite, recordedLatest } from "./latest.ts";
import { startTimer } from "../util/timer.ts";

/**
 * Largest session file svc loads (a 5,000-message session is about 2 MiB). A bigger file is
 * refused and left untouched rather than risking the memory of every process that opens it.
 */
export const SESSION_MAX_BYTES = 256 << 20;

/** A session file that cannot be parsed; it is reported and never overwritten. */
export class SessionError extends Error {
  override name = "SessionError";
}

/**
 * One append-only session log. An append shows in `data` at once and is written crash-safely
 * (temp file, fsync, rename) from cached per-record JSON, so a write costs one write of the file,
 * not a re-encode. Appends made together share one write (group commit); an append may ask to
 * wait `deferMs` for company. Appends from other processes are merged: under the lock, the file is
 * reloaded whenever its stamp (device, inode, size, mtime, ctime) differs from the one this process
 * last wrote or read, and this process's unwritten appends are applied again on top. A write that
 * fails takes its appends back out of memory (only the file's content remains, plus what was
 * appended since), so they are never saved later by another turn's write: what a caller was told
 * failed stays absent from the file.
 */
export class Session implements SessionLog {
  #data: SessionData;
  #json = { messages: new ByteList(), errors: new ByteList(), permissions: new ByteList() };
  /** The stamp of the file as this process last wrote or read it; null before either. */
  #stamp: string | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  /** Appends applied in memory but not written yet, replayed after a reload from disk. */
  #pending: Pending[] = [];
  /** How many records of each list the file holds, as this process last wrote or read it. */
  #durable: Counts;
  #waiters: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  /** Cancels the timer of a deferred write (`#commit`), when one is waiting. */
  #cancelTimer: (() => void) | undefined;
  /** The last failed write, reported once by `sync`. */
  #failure: unknown = null;
  /** A rename happened since the folder was last fsynced. */
  #dirty = false;
  /** Full tool results of this process's recent tool messages whose stored copy was shaped. */
  readonly live = new LiveResults();

  /**
   * What the first write does when a file of this name already exists: `unique` (a new
   * session) takes the next free name `<name>_2`, `<name>_3`, ...; `shared` (a session opened by
   * an explicit name) loads the file and appends to it. Null once the file is ours.
   */
  #fresh: "unique" | "shared" | null;

  constructor(
    readonly dir: string,
    data: SessionData,
    fresh: "unique" | "shared" | null = "unique",
  ) {
    this.#data = data;
    this.#fresh = fresh;
    this.#durable = fresh === null ? counts(data) : counts();
    this.#cache();
  }

  get name(): string {
    return this.#data.name;
  }

  get path(): string {
    return join(this.dir, `${this.#data.name}.json`);
  }

  /** The in-memory document; treat as read-only. */
  get data(): Readonly<SessionData> {
    return this.#data;
  }

  /** Loads a session file, throwing SessionError when it does not parse. */
  static async load(dir: string, name: string): Promise<Session> {
    const path = join(dir, `${name}.json`);
    // Stamped before reading: a write in between leaves an older stamp, so the next flush reloads.
    const stamp = await fileStamp(path);
    const session = new Session(dir, await readSessionFile(path), null);
    session.#stamp = stamp;
    return session;
  }

  /**
   * Appends a message; resolves once it is written. `live` is what the provider should keep
   * seeing when the stored content of a tool message was shaped (noise_tools,
   * session_tool_max_chars). `deferMs` lets the write wait that long for other appends.
   */
  appendMessage(
    message: SessionMessage,
    options: AppendOptions = {},
  ): Promise<void> {
    this.live.note(message, this.#data.messages, options.live);
    return this.#commit(() => {
      this.#data.messages.push(message);
      this.#json.messages.push(message);
    }, options.deferMs);
  }

  appendError(error: TurnError, options: ErrorOptions = {}): Promise<void> {
    return this.#commit(
      () => {
        this.#data.errors.push(error);
        this.#json.errors.push(error);
      },
      0,
      options.retry,
    );
  }

  appendPermission(record: PermissionRecord): Promise<void> {
    return this.#commit(() => {
      this.#data.permissions.push(record);
      this.#json.permissions.push(record);
    });
  }

  addSubSession(name: string): Promise<void> {
    return this.#commit(() => {
      this.#data.sub_sessions = [...(this.#data.sub_sessions ?? []), name];
    });
  }

  setEnvironment(
    environment: SessionEnvironment,
    options: { deferMs?: number } = {},
  ): Promise<void> {
    return this.#commit(() => {
      this.#data.environment = environment;
    }, options.deferMs);
  }

  /** Renames the session file (first-message naming); a taken name gets `_2`, `_3`, ... */
  rename(name: string): Promise<void> {
    this.#kick();
    return this.#serial(() =>
      withFileLock(join(this.dir, ".sessions"), async () => {
        let candidate = name;
        for (let n = 2; await pathExists(join(this.dir, `${candidate}.json`)); n++) {
          candidate = `${name}_${n}`;
        }
        const old = this.path;
        this.#data.name = candidate;
        if (await pathExists(old)) {
          await Deno.rename(old, this.path);
          this.#stamp = await fileStamp(this.path);
          this.#dirty = true;
        } else {
          // Not written yet: the free name was just chosen, so the first write must not pick
          // another one (`unique`) or load someone else's file (`shared`).
          this.#fresh = null;
          await this.#write();
        }
      })
    );
  }

  /**
   * Makes every append so far durable (fsyncs the folder). Each append's content is already
   * fsynced before its rename, so the file is never torn; this makes the latest rename stick.
   * Front-ends call it before acknowledging a turn.
   */
  sync(): Promise<void> {
    this.#kick();
    return this.#serial(async () => {
      const failure = this.#failure;
      this.#failure = null;
      if (failure) throw failure;
      if (!this.#dirty) return;
      await syncDir(this.dir);
      this.#dirty = false;
    });
  }

  /** Applies an append in memory now and queues its write. */
  #commit(apply: () => void, deferMs = 0, retry = false): Promise<void> {
    apply();
    this.#pending.push({ apply, retry });
    const written = new Promise<void>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
    });
    if (deferMs > 0) {
      this.#cancelTimer ??= startTimer(deferMs, () => {
        this.#cancelTimer = undefined;
        this.#kick();
      });
    } else this.#kick();
    return written;
  }

  /** Starts writing whatever is pending (after the write in progress, if any). */
  #kick(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    void this.#serial(() => this.#flush());
  }

  /** Writes every pending append in one crash-safe write; never throws (waiters get errors). */
  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    const waiters = this.#waiters;
    this.#pending = [];
    this.#waiters = [];
    try {
      await withFileLock(join(this.dir, ".sessions"), async () => {
        if (await this.#reloadIfChanged()) {
          // The reload replaced memory with the file: replay what this process has not written.
          for (const pending of [...batch, ...this.#pending]) pending.apply();
        }
        this.#data.updated_at = new Date().toISOString();
        const before = continuable(this.#data.name) ? null : recordedLatest(this.dir);
        await this.#write();
        // Under the lock, so no other svc write comes between (src/session/latest.ts).
        noteWrite(this.dir, { name: this.#data.name, before });
      });
      for (const waiter of waiters) waiter.resolve();
    } catch (err) {
      this.#failure = err;
      this.#rollBack(batch.filter((pending) => pending.retry));
      for (const waiter of waiters) waiter.reject(err);
    }
  }

  /**
   * After a failed write: memory goes back to what the file holds, then `kept` (appends that
   * retry until written) and the appends made since the batch was taken are applied again.
   */
  #rollBack(kept: Pending[]): void {
    const { messages, errors, permissions, subSessions, environment } = this.#durable;
    this.#data.messages.length = messages;
    this.#data.errors.length = errors;
    this.#data.permissions.length = permissions;
    if (subSessions === null) delete this.#data.sub_sessions;
    else this.#data.sub_sessions = this.#data.sub_sessions?.slice(0, subSessions);
    if (environment === null) delete this.#data.environment;
    else this.#data.environment = environment;
    this.#pending = [...kept, ...this.#pending];
    for (const pending of this.#pending) pending.apply();
    this.#cache();
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Loads the file when another process wrote it since our last write; true when it did. */
  async #reloadIfChanged(): Promise<boolean> {
    const fresh = this.#fresh;
    this.#fresh = null;
    if (fresh === "unique") {
      // Two new sessions of the same second and prompt must not share (and overwrite) a file.
      const base = this.#data.name;
      for (let n = 2; await pathExists(this.path); n++) this.#data.name = `${base}_${n}`;
      return false;
    }
    // Stamped before reading: a write in between leaves an older stamp, so the next flush reloads.
    const now = await fileStamp(this.path);
    // No file (not written yet, or renamed or deleted by another process): it is written anew.
    if (now === null || now === this.#stamp) return false;
    this.#data = await readSessionFile(this.path);
    this.#stamp = now;
    this.#durable = counts(this.#data);
    this.#cache();
    return true;
  }

  async #write(): Promise<void> {
    await Deno.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.path, this.#serialize(), { syncDir: false });
    this.#dirty = true;
    this.#durable = counts(this.#data);
    this.#stamp = await fileStamp(this.path);
  }

  #cache(): void {
    this.#json = {
      messages: new ByteList(this.#data.messages),
      errors: new ByteList(this.#data.errors),
      permissions: new ByteList(this.#data.permissions),
    };
  }

  /** The document as byte chunks: head fields, then the three arrays from their caches. */
  #serialize(): Uint8Array {
    const { messages: _m, errors: _e, permissions: _p, ...head } = this.#data;
    const text = (t: string) => new TextEncoder().encode(t);
    const chunks = [
      text(`${JSON.stringify(head).slice(0, -1)},"messages":`),
      ...this.#json.messages.chunks(),
      text(`,"errors":`),
      ...this.#json.errors.chunks(),
      text(`,"permissions":`),
      ...this.#json.permissions.chunks(),
      text("}\n"),
    ];
    return concatBytes(chunks);
  }
}

/** An append not written yet; `retry` keeps it queued through failed writes. */
interface Pending {
  apply(): void;
  retry: boolean;
}

/** How many records each list of a session document holds; null: no `sub_sessions` field. */
interface Counts {
  messages: number;
  errors: number;
  permissions: number;
  subSessions: number | null;
  /** The stored environment values (replaced, never appended to); null: none. */
  environment: SessionEnvironment | null;
}

function counts(data?: SessionData): Counts {
  return {
    messages: data?.messages.length ?? 0,
    errors: data?.errors.length ?? 0,
    permissions: data?.permissions.length ?? 0,
    subSessions: data?.sub_sessions?.length ?? null,
    environment: data?.environment ?? null,
  };
}

/**
 * What identifies one version of a file: device, inode, size, mtime and ctime, or null when there
 * is no file. The inode alone is not enough: ext4 hands a freed inode number (the file another
 * process's rename replaced) to the next new file at once. Every svc writer reloads under the
 * lock before writing and only appends, so each write is larger than the one before it.
 */
async function fileStamp(path: string): Promise<string | null> {
  try {
    const { dev, ino, size, mtime, ctime } = await Deno.stat(path);
    return [dev, ino, size, mtime?.getTime(), ctime?.getTime()].join(":");
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/**
 * Reads and checks a session document. The file name is the session's name: a `name` field
 * that differs (a copied file, or a hostile `../` path) is replaced, so writes never leave the
 * sessions folder.
 */
export async function readSessionFile(path: string): Promise<SessionData> {
  let text: string;
  try {
    text = (await readTextCapped(path, SESSION_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new SessionError(`No session file at ${path}`);
    if (err instanceof UnreadableFileError) {
      throw new SessionError(`Session file ${path} is ${err.message}; it was left untouched`);
    }
    throw new SessionError(`Cannot read session file ${path}: ${(err as Error).message}`);
  }
  let data: SessionData;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new SessionError(
      `Session file ${path} is not valid JSON (${(err as Error).message}); it was left untouched`,
    );
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new SessionError(`Session file ${path} is not a session document; it was left untouched`);
  }
  // The schema (and zod) load only when a stored session is read; a new session needs neither.
  const { sessionProblem } = await import("./schema.ts");
  const problem = sessionProblem(data);
  if (problem) {
    throw new SessionError(
      `Session file ${path} is not a valid session (${problem}); it was left untouched`,
    );
  }
  data.name = basename(path).replace(/\.json$/, "");
  data.errors = Array.isArray(data.errors) ? data.errors : [];
  data.permissions = Array.isArray(data.permissions) ? data.permissions : [];
  return data;
}
