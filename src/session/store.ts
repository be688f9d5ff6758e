import { join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { pathExists } from "../util/fs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { forkHistory } from "./fork.ts";
import { newSessionData } from "./log.ts";
import { readSessionFile, Session, SessionError } from "./session.ts";
import type { SessionData } from "./types.ts";

/** The sessions of one worktree: `.svc/sessions/<name>.json`. */
export class SessionStore {
  readonly dir: string;
  /** The worktree the sessions belong to. */
  readonly worktree: string;

  /**
   * With `confine` (an untrusted worktree), a `.svc` or `.svc/sessions` that resolves outside the
   * worktree through a symlink is refused with a SessionError, so a cloned repository cannot aim
   * svc's session writes at another folder.
   */
  constructor(worktree: string, options: { confine?: boolean } = {}) {
    this.worktree = worktree;
    this.dir = join(localDir(worktree), "sessions");
    if (options.confine) {
      const root = canonicalPath(worktree, ".");
      const real = canonicalPath(root, this.dir);
      if (!isInside(root, real)) {
        throw new SessionError(
          `${this.dir} leads outside the worktree (to ${real}); svc writes sessions there only ` +
            "in a trusted worktree (svc trust)",
        );
      }
    }
  }

  /**
   * Makes the sessions folder and proves a file can be created in it, so `svc run` stops before
   * calling the model; a SessionError says why it cannot and what to do.
   */
  async checkWritable(): Promise<void> {
    try {
      await Deno.mkdir(this.dir, { recursive: true });
      await Deno.remove(await Deno.makeTempFile({ dir: this.dir, prefix: ".write-check-" }));
    } catch (err) {
      throw new SessionError(`cannot create files in ${this.dir}: ${writeFailure(err)}`);
    }
  }

  /** Saved session names, sorted. */
  async list(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (entry.isFile && entry.name.endsWith(".json") && !entry.name.startsWith(".")) {
          names.push(entry.name.slice(0, -5));
        }
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    return names.sort();
  }

  async exists(name: string): Promise<boolean> {
    try {
      return (await Deno.stat(join(this.dir, `${name}.json`))).isFile;
    } catch {
      return false;
    }
  }

  /**
   * Opens a saved session, or starts a new one that is written on its first append. Anything at
   * the path is loaded, so a FIFO or folder there is refused now, not at the first write.
   */
  async openOrCreate(name: string, extra: { parent_id?: string } = {}): Promise<Session> {
    if (await pathExists(join(this.dir, `${name}.json`))) return await Session.load(this.dir, name);
    return this.create(name, extra, "shared");
  }

  /**
   * A new, not yet written session. By default its first write takes a free name (`_2`, ...) if
   * `name` exists by then; `shared` appends to a file that another process created meanwhile.
   */
  create(
    name: string,
    extra: { parent_id?: string } = {},
    fresh: "unique" | "shared" = "unique",
  ): Session {
    return new Session(this.dir, newSessionData(name, extra), fresh);
  }

  /**
   * A new session whose history is a copy of `source`'s up to the end of turn `at` (default its
   * last), linked by `forked_from`; written at once as `name` (or the next free `<name>_2`, ...).
   * The source is only read. A problem when it has no turns yet or no turn `at`.
   */
  async fork(
    source: Pick<SessionData, "name" | "messages">,
    options: { name: string; at?: number },
  ): Promise<Session | { problem: string }> {
    const history = forkHistory(source, options.at);
    if ("problem" in history) return history;
    const data: SessionData = {
      ...newSessionData(options.name),
      forked_from: history.origin,
      messages: history.messages,
    };
    const session = new Session(this.dir, data, "unique");
    // Renaming a session not written yet takes the first free name and writes it.
    await session.rename(options.name);
    return session;
  }

  /** The raw stored document (read-only access for MCP resources and previews). */
  read(name: string): Promise<SessionData> {
    return readSessionFile(join(this.dir, `${name}.json`));
  }

  async delete(name: string): Promise<void> {
    await Deno.remove(join(this.dir, `${name}.json`));
  }
}

/** Why a file could not be created and what to do, in words. */
function writeFailure(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const elsewhere = "run svc in a writable folder, or pass --path <dir> for a writable worktree";
  if (err instanceof Deno.errors.AlreadyExists || code === "ENOTDIR") {
    return `a file stands where a folder should be (${(err as Error).message}); move it aside`;
  }
  if (code === "EROFS") return `the file system is read-only; ${elsewhere}`;
  if (err instanceof Deno.errors.PermissionDenied || code === "EACCES" || code === "EPERM") {
    return `this user may not write there (${(err as Error).message}); ${elsewhere}`;
  }
  if (code === "ENOSPC") return "the disk is full; free some space";
  return `${(err as Error).message}; ${elsewhere}`;
}
